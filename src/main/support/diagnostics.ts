import type { EnvironmentStatusView } from '../../shared/environmentStatus.js';
import type { VaultStatus } from '../../shared/vault.js';
import { redactSecrets } from '../logging/redactSecrets.js';
import type { UpdateStatus } from '../update/UpdateStatus.js';

/** What the About box and the diagnostics report are made of (read by the wiring from Electron and the services). */
export interface SupportFacts {
  appVersion: string;
  packaged: boolean;
  /** `process.versions`: electron, chrome, node. */
  versions: Partial<Record<'electron' | 'chrome' | 'node', string>>;
  os: { platform: string; release: string; arch: string };
  /** Absent: this build has no updater. */
  update?: UpdateStatus;
}

export interface DiagnosticsFacts extends SupportFacts {
  environments: readonly EnvironmentStatusView[];
  vault: VaultStatus;
  /** The last error lines of the log (already redacted there). */
  lastErrors: readonly string[];
  logFolder: string;
  /** Where Electron's crash reporter keeps its local dumps (nothing is uploaded). */
  crashDumps?: string;
}

/** The update line: what the updater is doing, or that this build has none. */
export function describeUpdate(update: UpdateStatus | undefined): string {
  if (!update) return 'Updates: unavailable in this build';
  const version = update.availableVersion ? ` ${update.availableVersion}` : '';
  const text: Record<UpdateStatus['state'], string> = {
    idle: 'not checked yet',
    disabled: 'disabled',
    checking: 'checking…',
    'up-to-date': 'up to date',
    downloading: `downloading${version}${update.progressPercent !== undefined ? ` (${Math.round(update.progressPercent)} %)` : ''}`,
    downloaded: `version${version} ready: restart to update`,
    error: 'the last check failed',
  };
  const checked = update.checkedAtUtc ? `, checked ${update.checkedAtUtc}` : '';
  return `Updates: ${text[update.state]}${update.message ? ` — ${update.message}` : ''}${checked}`;
}

/** The About box's text: the app and the versions it runs on, and the update state. */
export function aboutText(facts: SupportFacts): string {
  return [
    `Svc Monitor ${facts.appVersion}${facts.packaged ? '' : ' (development)'}`,
    `Electron ${facts.versions.electron ?? '—'} · Chromium ${facts.versions.chrome ?? '—'} · Node ${facts.versions.node ?? '—'}`,
    `${facts.os.platform} ${facts.os.release} (${facts.os.arch})`,
    describeUpdate(facts.update),
  ].join('\n');
}

/** `https://user:secret@host/x` → `https://host/x`: a URL's credentials never reach a report. */
function withoutUrlCredentials(text: string): string {
  return text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi, '$1');
}

/**
 * A crash dump is a copy of the process's memory: it may hold tokens and passwords the
 * console had in use. Whoever is pointed at the folder is told so.
 */
export const CRASH_DUMP_WARNING =
  'Crash dumps may contain tokens and passwords from memory: share them only with a support contact you trust, and delete them afterwards.';

/**
 * The report "Copy diagnostics" puts on the clipboard for a support ticket: versions, OS,
 * the environments with their live state, where secrets are kept, the last errors, and where
 * the logs and crash dumps are. Never a token, a password or a URL's credentials: only
 * addresses and states are listed, and the whole text is redacted once more.
 */
export function diagnosticsReport(facts: DiagnosticsFacts): string {
  const lines = [
    '# Svc Monitor diagnostics',
    aboutText(facts),
    '',
    `## Environments (${facts.environments.length})`,
    ...facts.environments.map((e) => {
      const details = [e.isProduction ? 'production' : 'non-production', `live: ${e.live}`, `session: ${e.session.auth}`, `hub: ${e.hub.state}`];
      if (e.statusMessage) details.push(`status: ${e.statusMessage}`);
      if (e.notWatching) details.push(`not watching: ${e.notWatching}`);
      return `- ${e.name} <${e.baseUrl}>: ${details.join('; ')}`;
    }),
    '',
    `Secrets kept in: ${facts.vault.storage}${facts.vault.reason ? ` (${facts.vault.reason})` : ''}`,
    `Logs: ${facts.logFolder}`,
    `Crash dumps (local only, never uploaded): ${facts.crashDumps ?? 'crash reporter not running'}`,
    ...(facts.crashDumps ? [CRASH_DUMP_WARNING] : []),
    '',
    `## Last errors (${facts.lastErrors.length})`,
    ...(facts.lastErrors.length > 0 ? facts.lastErrors : ['none']),
  ];
  return redactSecrets(withoutUrlCredentials(lines.join('\n')));
}
