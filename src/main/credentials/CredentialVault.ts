import { z } from 'zod';
import { Serial } from '../lifecycle/Serial.js';
import { withinTime } from '../lifecycle/withinTime.js';
import { KeytarSecretBackend } from './KeytarSecretBackend.js';
import { MemorySecretBackend } from './MemorySecretBackend.js';
import { SafeStorageFileBackend } from './SafeStorageFileBackend.js';
import type { KeytarLike, SafeStorageLike, SecretBackend } from './secretBackend.js';
import type { VaultStatus } from '../../shared/vault.js';

/** What the vault keeps for one environment. Never leaves the main process. */
export interface EnvironmentSecret {
  token?: string;
  expiresAt?: string;
  username?: string;
  canManage?: boolean;
  /** Only when the user asked to remember it. */
  password?: string;
  /** When this record was written (ISO): the newer copy wins a migration. */
  savedAt: string;
}

const secretSchema = z.object({
  token: z.string().optional(),
  expiresAt: z.string().optional(),
  username: z.string().optional(),
  canManage: z.boolean().optional(),
  password: z.string().optional(),
  savedAt: z.string(),
});


export interface CredentialVaultOptions {
  userDataDir: string;
  /** Loads keytar (it may fail to load at all); absent → no keychain. */
  loadKeytar?: () => Promise<KeytarLike>;
  safeStorage?: SafeStorageLike;
  /** Called with the account and error when a migration step fails verification. */
  onMigrationProblem?: (account: string, problem: string) => void;
  /** How long the keychain may take to answer its first call (default 10 s); then it counts as unreachable. */
  probeTimeoutMs?: number;
}

/**
 * Tokens and remembered passwords per environment: the OS keychain through keytar; when no
 * keychain answers, a safeStorage-encrypted file (refused for the `basic_text` backend);
 * otherwise memory only, with the reason kept for the user. Never plaintext on disk.
 * On open, secrets left in the encrypted file move into the keychain when it became
 * available: read both, write the newer one to the keychain, read it back, then delete
 * the old copy.
 */
export class CredentialVault {
  /** `update` reads, merges and writes a record: one at a time, so two merges never drop each other's field. */
  private readonly updates = new Serial();

  private constructor(private readonly backend: SecretBackend, private readonly statusValue: VaultStatus) {}

  static async open(options: CredentialVaultOptions): Promise<CredentialVault> {
    const reasons: string[] = [];
    let keychain: KeytarSecretBackend | undefined;
    if (options.loadKeytar) {
      try {
        const candidate = new KeytarSecretBackend(await options.loadKeytar());
        // A Secret Service that never answers (a locked session bus, a stuck daemon) must not
        // leave the console at "unlocking the keychain…": past the limit it is not used.
        const limit = options.probeTimeoutMs ?? 10_000;
        if (!(await withinTime(candidate.probe(), limit)).done) throw new Error(`it did not answer within ${Math.round(limit / 1000)} s`);
        keychain = candidate;
      } catch (err) {
        reasons.push(`the OS keychain is not reachable (${errorText(err)})`);
      }
    } else {
      reasons.push('the OS keychain module (keytar) is not available');
    }
    const fileReason = SafeStorageFileBackend.unusableReason(options.safeStorage);
    const fileBackend = fileReason === undefined ? new SafeStorageFileBackend(options.safeStorage!, options.userDataDir) : undefined;

    if (keychain) {
      const migrated = fileBackend ? await migrate(fileBackend, keychain, options.onMigrationProblem) : 0;
      return new CredentialVault(keychain, { storage: 'keychain', migrated });
    }
    if (fileBackend) {
      return new CredentialVault(fileBackend, { storage: 'encrypted-file', reason: `${reasons.join('; ')}; secrets are kept in a file encrypted by Electron safeStorage`, migrated: 0 });
    }
    reasons.push(fileReason!);
    return new CredentialVault(new MemorySecretBackend(), {
      storage: 'memory',
      reason: `${reasons.join('; ')}. Secrets are kept in memory for this session only: you will have to log in again after a restart.`,
      migrated: 0,
    });
  }

  status(): VaultStatus {
    return { ...this.statusValue };
  }

  async get(environmentId: string): Promise<EnvironmentSecret | undefined> {
    const text = await this.backend.get(environmentId);
    return text === null ? undefined : parseSecret(text);
  }

  /** Merges `patch` into the stored record (a field set to undefined is removed). */
  update(environmentId: string, patch: Partial<Omit<EnvironmentSecret, 'savedAt'>>): Promise<EnvironmentSecret> {
    return this.updates.run(() => this.merge(environmentId, patch));
  }

  private async merge(environmentId: string, patch: Partial<Omit<EnvironmentSecret, 'savedAt'>>): Promise<EnvironmentSecret> {
    const current = (await this.get(environmentId)) ?? { savedAt: '' };
    const next: Record<string, unknown> = { ...current, ...patch, savedAt: new Date().toISOString() };
    for (const k of Object.keys(next)) if (next[k] === undefined) delete next[k];
    const record = next as unknown as EnvironmentSecret;
    await this.backend.set(environmentId, JSON.stringify(record));
    return record;
  }

  async delete(environmentId: string): Promise<void> {
    await this.updates.run(() => this.backend.delete(environmentId));
  }

  /** Deletes the records of environments that no longer exist. */
  async prune(keepIds: ReadonlySet<string>): Promise<number> {
    let removed = 0;
    for (const account of await this.backend.accounts()) {
      if (!keepIds.has(account) && (await this.backend.delete(account))) removed++;
    }
    return removed;
  }
}

function parseSecret(text: string): EnvironmentSecret | undefined {
  try {
    const parsed = secretSchema.safeParse(JSON.parse(text));
    return parsed.success ? (stripUndefined(parsed.data) as EnvironmentSecret) : undefined;
  } catch {
    return undefined;
  }
}

function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

async function migrate(from: SecretBackend, to: SecretBackend, onProblem?: (account: string, problem: string) => void): Promise<number> {
  let accounts: string[];
  try {
    accounts = await from.accounts();
  } catch (err) {
    onProblem?.('*', `cannot read the encrypted file: ${errorText(err)}`);
    return 0;
  }
  let moved = 0;
  for (const account of accounts) {
    try {
      const oldText = await from.get(account);
      if (oldText === null) continue;
      const oldRecord = parseSecret(oldText);
      const newText = await to.get(account);
      const newRecord = newText === null ? undefined : parseSecret(newText);
      const winner = !newRecord || (oldRecord && oldRecord.savedAt > newRecord.savedAt) ? oldText : newText!;
      if (winner !== newText) await to.set(account, winner);
      const check = await to.get(account);
      if (check !== winner) {
        onProblem?.(account, 'the keychain copy did not read back equal; the encrypted copy is kept');
        continue;
      }
      await from.delete(account);
      moved++;
    } catch (err) {
      onProblem?.(account, errorText(err));
    }
  }
  return moved;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
