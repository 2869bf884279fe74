import { open } from 'node:fs/promises';
import { redactSecrets } from '../logging/redactSecrets.js';
import { CRASH_DUMP_WARNING, describeUpdate, type DiagnosticsFacts } from './diagnostics.js';

/** Lines of the log's end a bundle carries (the preview shows all of it). */
export const SUPPORT_LOG_LINES = 200;
/** The format name and version inside every bundle. */
export const SUPPORT_BUNDLE_FORMAT = 'svc-monitor-support-bundle/1';

export interface SupportBundleFacts extends DiagnosticsFacts {
  /** The settings files as read (notification settings, desktop preferences): secret-named fields are dropped here. */
  settings: Record<string, unknown>;
  /** The log's last lines (readLogTail). */
  logTail: readonly string[];
  now?: () => Date;
}

/** Field names whose values never leave the machine, wherever they sit in the settings. */
const SECRET_KEY = /token|password|passwd|secret|authorization|cookie|api[-_]?key|credential/i;

function withoutSecretFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecretFields);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, SECRET_KEY.test(k) ? '[redacted]' : withoutSecretFields(v)]));
  }
  return value;
}

/**
 * The support bundle: one JSON file (versions, update state, settings without secrets, the
 * environments and their states, where secrets are kept, the last errors and the log's tail).
 * Addresses and states only; secret-named fields are dropped and the whole text is redacted once
 * more (tokens, passwords, Authorization headers, credentials in URLs, token query values), so a
 * secret that reached a log line or an error message by another way does not leave either.
 */
export function supportBundleText(facts: SupportBundleFacts): string {
  const bundle = {
    format: SUPPORT_BUNDLE_FORMAT,
    createdAtUtc: (facts.now ?? (() => new Date()))().toISOString(),
    app: { version: facts.appVersion, packaged: facts.packaged, versions: facts.versions, os: facts.os, update: describeUpdate(facts.update) },
    environments: facts.environments.map((e) => ({
      name: e.name,
      baseUrl: e.baseUrl,
      isProduction: e.isProduction,
      live: e.live,
      session: e.session.auth,
      hub: e.hub.state,
      ...(e.statusMessage ? { status: e.statusMessage } : {}),
      ...(e.hub.message ? { hubMessage: e.hub.message } : {}),
      ...(e.notWatching ? { notWatching: e.notWatching } : {}),
      ...(e.caCertificatePath ? { caCertificatePath: e.caCertificatePath } : {}),
      ...(e.allowSelfSigned ? { allowSelfSigned: true } : {}),
    })),
    settings: withoutSecretFields(facts.settings),
    secretsKeptIn: `${facts.vault.storage}${facts.vault.reason ? ` (${facts.vault.reason})` : ''}`,
    logFolder: facts.logFolder,
    crashDumps: facts.crashDumps ? `${facts.crashDumps} (not included) — ${CRASH_DUMP_WARNING}` : 'crash reporter not running',
    lastErrors: facts.lastErrors,
    logTail: facts.logTail,
  };
  return `${redactSecrets(JSON.stringify(bundle, null, 2))}\n`;
}

/** `svc-monitor-support-2026-11-29T01-40-00Z.json` */
export function supportBundleFileName(at: Date): string {
  return `svc-monitor-support-${at.toISOString().replace(/\.\d+Z$/, 'Z').replace(/:/g, '-')}.json`;
}

/** The last `lines` lines of a log file (fewer when it is shorter; none when it cannot be read). */
export async function readLogTail(path: string, lines = SUPPORT_LOG_LINES): Promise<string[]> {
  let file;
  try {
    file = await open(path, 'r');
  } catch {
    return [];
  }
  try {
    const { size } = await file.stat();
    // The tail only: at most 256 KiB from the end.
    const length = Math.min(size, 256 * 1024);
    const buffer = Buffer.alloc(length);
    await file.read(buffer, 0, length, size - length);
    const all = buffer.toString('utf8').split('\n').filter((l) => l.length > 0);
    return all.slice(-lines);
  } finally {
    await file.close();
  }
}

export interface SaveSupportBundleSteps {
  /** Shows the bundle's whole text; true when the user chose to save it. */
  preview(text: string, fileName: string): Promise<boolean>;
  /** Where to save (a save dialog); undefined when cancelled. */
  choosePath(fileName: string): Promise<string | undefined>;
  write(path: string, text: string): Promise<void>;
}

/**
 * Help → Save support bundle: the text is built, shown in full, and written only where the user
 * chose after seeing it (exactly the text shown). Resolves with the path written, or undefined.
 */
export async function saveSupportBundle(text: string, fileName: string, steps: SaveSupportBundleSteps): Promise<string | undefined> {
  if (!(await steps.preview(text, fileName))) return undefined;
  const path = await steps.choosePath(fileName);
  if (!path) return undefined;
  await steps.write(path, text);
  return path;
}
