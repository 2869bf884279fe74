import { randomUUID } from 'node:crypto';
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { readJsonFile } from '../files/readJsonFile.js';
import { writeFileAtomic } from '../files/writeFileAtomic.js';
import { Serial } from '../lifecycle/Serial.js';
import type { ImportMode, ImportResult } from '../../shared/environment.js';
import { readCaCertificates } from '../network/caCertificates.js';
import {
  describeZodError,
  environmentInputSchema,
  environmentPatchSchema,
  environmentSchema,
  selfSignedRefusal,
  insecureProductionRefusal,
} from './environment.js';
import type { Environment, EnvironmentInput } from '../../shared/environment.js';

export const ENVIRONMENTS_FILE = 'environments.json';
export const EXPORT_FORMAT = 'svc-monitor-environments';

export class EnvironmentValidationError extends Error {
  override name = 'EnvironmentValidationError';
}

// Stored files keep fields this version does not know (written by a newer version or by hand).
const fileSchema = z.looseObject({ version: z.literal(1), environments: z.array(environmentSchema.loose()) });
const KNOWN_FIELDS = new Set(Object.keys(environmentSchema.shape));

/** environments.json could not be used: it was moved aside and the list starts empty. */
export interface EnvironmentsFileRecovery {
  reason: string;
  movedTo: string;
}
const exportSchema = z.object({
  format: z.literal(EXPORT_FORMAT),
  version: z.literal(1),
  environments: z.array(environmentInputSchema),
});


type Listener = (environments: readonly Environment[]) => void;

/**
 * The list of environments, kept in `environments.json` under the app's user-data folder.
 * Holds no secrets (those live in the CredentialVault). Every mutation validates, writes the
 * file atomically and notifies listeners.
 */
export class EnvironmentStore {
  private environments: Environment[] = [];
  private readonly listeners = new Set<Listener>();
  private writing: Promise<void> = Promise.resolve();
  /** Each change reads the list, changes it and writes it: one at a time, or a change is lost. */
  private readonly changes = new Serial();
  /** Unknown fields of the file and of each environment (by id), written back unchanged. */
  private fileExtras: Record<string, unknown> = {};
  private readonly environmentExtras = new Map<string, Record<string, unknown>>();
  /** Set when the file on disk could not be used at open. */
  recovery: EnvironmentsFileRecovery | undefined;

  private constructor(private readonly file: string) {}

  /**
   * Reads environments.json. A file that cannot be used (not JSON, or not matching the
   * schema after a hand edit or a downgrade) is moved aside to
   * `environments.json.bad-<time>` and the list starts empty: `recovery` says so.
   */
  static async open(userDataDir: string, now: () => Date = () => new Date()): Promise<EnvironmentStore> {
    const store = new EnvironmentStore(join(userDataDir, ENVIRONMENTS_FILE));
    let raw: unknown;
    let problem: string | undefined;
    try {
      raw = await readJsonFile(store.file);
    } catch (err) {
      problem = (err as Error).message;
    }
    if (raw !== undefined && problem === undefined) {
      const parsed = fileSchema.safeParse(raw);
      if (parsed.success) {
        const { version: _version, environments, ...fileExtras } = parsed.data;
        store.fileExtras = fileExtras;
        store.environments = environments.map((e) => {
          const known: Record<string, unknown> = {};
          const extras: Record<string, unknown> = {};
          for (const [k, v] of Object.entries(e)) (KNOWN_FIELDS.has(k) ? known : extras)[k] = v;
          if (Object.keys(extras).length > 0) store.environmentExtras.set(e.id, extras);
          return known as unknown as Environment;
        });
      } else {
        problem = `${store.file} is invalid: ${describeZodError(parsed.error)}`;
      }
    }
    if (problem !== undefined) {
      const movedTo = `${store.file}.bad-${now().toISOString().replace(/[:.]/g, '-')}`;
      await rename(store.file, movedTo);
      store.recovery = { reason: problem, movedTo };
    }
    return store;
  }

  list(): readonly Environment[] {
    return this.environments.map((e) => ({ ...e }));
  }

  get(id: string): Environment | undefined {
    const e = this.environments.find((x) => x.id === id);
    return e ? { ...e } : undefined;
  }

  /** By id, else by name (case-insensitive): what a deep link names. */
  find(idOrName: string): Environment | undefined {
    const lower = idOrName.toLowerCase();
    const e = this.environments.find((x) => x.id === idOrName) ?? this.environments.find((x) => x.name.toLowerCase() === lower);
    return e ? { ...e } : undefined;
  }

  onChange(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  add(input: EnvironmentInput): Promise<Environment> {
    return this.changes.run(() => this.applyAdd(input));
  }

  private async applyAdd(input: EnvironmentInput): Promise<Environment> {
    const parsed = environmentInputSchema.safeParse(input);
    if (!parsed.success) throw new EnvironmentValidationError(describeZodError(parsed.error));
    this.assertUniqueName(parsed.data.name);
    const env: Environment = withoutEmptySettings({ id: randomUUID(), ...parsed.data });
    assertUsableTrust(env);
    await this.commit([...this.environments, env]);
    return { ...env };
  }

  update(id: string, patch: Partial<EnvironmentInput>): Promise<Environment> {
    return this.changes.run(() => this.applyUpdate(id, patch));
  }

  private async applyUpdate(id: string, patch: Partial<EnvironmentInput>): Promise<Environment> {
    const index = this.indexOf(id);
    const parsed = environmentPatchSchema.safeParse(patch);
    if (!parsed.success) throw new EnvironmentValidationError(describeZodError(parsed.error));
    const current = this.environments[index]!;
    const next: Environment = withoutEmptySettings({ ...current, ...stripUndefined(parsed.data) });
    if (parsed.data.name !== undefined) this.assertUniqueName(parsed.data.name, id);
    assertUsableTrust(next, current);
    const list = [...this.environments];
    list[index] = next;
    await this.commit(list);
    return { ...next };
  }

  remove(id: string): Promise<void> {
    return this.changes.run(() => this.applyRemove(id));
  }

  private async applyRemove(id: string): Promise<void> {
    this.indexOf(id);
    await this.commit(this.environments.filter((e) => e.id !== id));
  }

  /** `ids` must be a permutation of the current ids. */
  reorder(ids: readonly string[]): Promise<void> {
    return this.changes.run(() => this.applyReorder(ids));
  }

  private async applyReorder(ids: readonly string[]): Promise<void> {
    const current = new Set(this.environments.map((e) => e.id));
    if (ids.length !== current.size || new Set(ids).size !== ids.length || ids.some((id) => !current.has(id))) {
      throw new EnvironmentValidationError('reorder needs every environment id exactly once');
    }
    await this.commit(ids.map((id) => this.environments.find((e) => e.id === id)!));
  }

  /** The list as a JSON document without ids and without any secret. */
  exportJson(): string {
    const environments = this.environments.map(({ id: _id, ...rest }) => rest);
    return JSON.stringify({ format: EXPORT_FORMAT, version: 1, environments }, null, 2);
  }

  /**
   * Imports an exported list. `merge`: an entry whose name exists updates that environment
   * (id kept), others are added. `replace`: the list becomes the imported one (environments
   * whose name is kept keep their id; the ids of removed ones are returned so that their
   * secrets can be deleted). An entry that cannot be used here (its CA file is unreadable on
   * this machine, or it is production over http, whose typed confirmation a file cannot carry)
   * is left out and reported in `skipped`, with the current environment of that name kept as
   * it is; the others are imported. An entry that would move a current environment to another
   * address or take away its production flag needs `confirmed`: without it nothing is written
   * and `unconfirmed` lists what would change (the same preview for merge and replace).
   */
  importJson(text: string, mode: ImportMode, confirmed = false): Promise<ImportResult> {
    return this.changes.run(() => this.applyImportJson(text, mode, confirmed));
  }

  private async applyImportJson(text: string, mode: ImportMode, confirmed: boolean): Promise<ImportResult> {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      throw new EnvironmentValidationError('import: not valid JSON');
    }
    const parsed = exportSchema.safeParse(raw);
    if (!parsed.success) throw new EnvironmentValidationError(`import: ${describeZodError(parsed.error)}`);
    const names = new Set<string>();
    for (const e of parsed.data.environments) {
      const key = e.name.toLowerCase();
      if (names.has(key)) throw new EnvironmentValidationError(`import: duplicate name "${e.name}"`);
      names.add(key);
    }
    const byName = new Map(this.environments.map((e) => [e.name.toLowerCase(), e]));
    let added = 0;
    let updated = 0;
    const skipped: ImportResult['skipped'] = [];
    const unconfirmed: NonNullable<ImportResult['unconfirmed']> = [];
    /** In the file's order: the imported environment, or the current one an entry left out would have changed. */
    const next: Environment[] = [];
    for (const input of parsed.data.environments) {
      // The typed confirmation of production over http is given on this machine, never by a
      // file: an imported one is dropped (one already given here for the same address stays).
      const { insecureHttpConfirmedName: _fromFile, ...fromFile } = stripUndefined(input);
      const existing = byName.get(input.name.toLowerCase());
      const confirmedHere = existing?.insecureHttpConfirmedName && existing.baseUrl === fromFile.baseUrl && existing.name === fromFile.name ? { insecureHttpConfirmedName: existing.insecureHttpConfirmedName } : {};
      const env = withoutEmptySettings({ ...fromFile, ...confirmedHere, id: existing?.id ?? randomUUID() } as Environment);
      try {
        assertUsableTrust(env);
      } catch (err) {
        // One bad entry (a CA file missing on this machine) does not stop the others.
        skipped.push({ name: env.name, reason: (err as Error).message });
        if (existing) next.push(existing);
        continue;
      }
      if (existing) {
        updated++;
        const changes = [
          ...(existing.baseUrl !== env.baseUrl ? [`address ${existing.baseUrl} → ${env.baseUrl}`] : []),
          ...(existing.isProduction && !env.isProduction ? ['no longer production'] : []),
        ];
        if (changes.length > 0) unconfirmed.push({ name: existing.name, changes });
      } else added++;
      next.push(env);
    }
    if (unconfirmed.length > 0 && !confirmed) return { added: 0, updated: 0, removedIds: [], skipped, unconfirmed };
    let list: Environment[];
    let removedIds: string[] = [];
    if (mode === 'replace') {
      const keep = new Set(next.map((e) => e.id));
      removedIds = this.environments.filter((e) => !keep.has(e.id)).map((e) => e.id);
      list = next;
    } else {
      const nextById = new Map(next.map((e) => [e.id, e]));
      list = this.environments.map((e) => nextById.get(e.id) ?? e);
      for (const e of next) if (!this.environments.some((x) => x.id === e.id)) list.push(e);
    }
    await this.commit(list);
    return { added, updated, removedIds, skipped };
  }

  private indexOf(id: string): number {
    const index = this.environments.findIndex((e) => e.id === id);
    if (index < 0) throw new EnvironmentValidationError(`unknown environment id "${id}"`);
    return index;
  }

  private assertUniqueName(name: string, exceptId?: string): void {
    const lower = name.trim().toLowerCase();
    if (this.environments.some((e) => e.id !== exceptId && e.name.toLowerCase() === lower)) {
      throw new EnvironmentValidationError(`name: an environment named "${name.trim()}" already exists`);
    }
  }

  private async commit(list: Environment[]): Promise<void> {
    const environments = list.map((e) => ({ ...this.environmentExtras.get(e.id), ...e }));
    const text = JSON.stringify({ ...this.fileExtras, version: 1, environments }, null, 2);
    const write = this.writing.then(() => writeFileAtomic(this.file, text));
    this.writing = write.catch(() => undefined);
    await write;
    this.environments = list;
    const snapshot = this.list();
    for (const l of this.listeners) l(snapshot);
  }
}

/** An empty CA path or confirmation means "none": the field is dropped rather than stored empty. */
function withoutEmptySettings(env: Environment): Environment {
  const { caCertificatePath, insecureHttpConfirmedName, ...rest } = env;
  return { ...rest, ...(caCertificatePath ? { caCertificatePath } : {}), ...(insecureHttpConfirmedName ? { insecureHttpConfirmedName } : {}) };
}

/**
 * Checked when saved: production never allows self-signed certificates, and a CA certificate
 * file (when it is new or changed) must be readable and hold certificates.
 */
function assertUsableTrust(env: Environment, previous?: Environment): void {
  const refusal = selfSignedRefusal(env) ?? insecureProductionRefusal(env);
  if (refusal) throw new EnvironmentValidationError(refusal);
  if (env.caCertificatePath && env.caCertificatePath !== previous?.caCertificatePath) {
    try {
      readCaCertificates(env.caCertificatePath);
    } catch (err) {
      throw new EnvironmentValidationError((err as Error).message);
    }
  }
}

function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
