import type { EnvironmentLiveStatus, EnvironmentStatusView } from '../../shared/environmentStatus.js';

/** A plain description of the tray menu; the wiring turns it into an Electron Menu. */
export type TrayMenuItem =
  | { kind: 'action'; id: 'show' | 'inbox' | 'quit'; label: string }
  | { kind: 'environment'; environmentId: string; label: string; enabled: true }
  | { kind: 'separator' }
  | { kind: 'label'; label: string };

const STATUS_LABEL: Record<EnvironmentLiveStatus, string> = {
  connecting: 'connecting…',
  connected: 'connected',
  reconnecting: 'reconnecting…',
  polling: 'polling',
  'logged-out': 'logged out',
  'relogin-required': 'log in again',
  error: 'error',
};

const STATUS_MARK: Record<EnvironmentLiveStatus, string> = {
  connecting: '◌',
  connected: '●',
  reconnecting: '◐',
  polling: '○',
  'logged-out': '○',
  'relogin-required': '⚠',
  error: '✖',
};

/**
 * Show, the all-environments headline (failing / down counts of the last summary), environments
 * with their status, the inbox with its unread count, quit.
 */
export function buildTrayMenuTemplate(environments: readonly EnvironmentStatusView[], unread: number, headline?: string): TrayMenuItem[] {
  const items: TrayMenuItem[] = [{ kind: 'action', id: 'show', label: 'Show Svc Monitor' }, { kind: 'separator' }];
  if (headline && environments.length > 0) items.push({ kind: 'label', label: headline });
  const gaps = environments.filter((e) => e.notWatching);
  if (offline(environments)) items.push({ kind: 'label', label: `⚠ Offline? Not watching any of the ${environments.length} environments` });
  else if (gaps.length > 0) items.push({ kind: 'label', label: `⚠ Not watching ${gaps.length} of ${environments.length}` });
  if (environments.length === 0) items.push({ kind: 'label', label: 'No environments yet' });
  for (const e of environments) {
    items.push({
      kind: 'environment',
      environmentId: e.id,
      enabled: true,
      label: `${e.notWatching ? '⚠' : STATUS_MARK[e.live]} ${e.name}${e.isProduction ? ' (production)' : ''} — ${e.notWatching ? `not watching: ${e.notWatching}` : STATUS_LABEL[e.live]}`,
    });
  }
  items.push(
    { kind: 'separator' },
    { kind: 'action', id: 'inbox', label: unread > 0 ? `Failure inbox (${unread} unread)` : 'Failure inbox' },
    { kind: 'separator' },
    { kind: 'action', id: 'quit', label: 'Quit' },
  );
  return items;
}

/** Environments all down at once from which the machine counts as offline. */
export const OFFLINE_FROM = 3;

/** Environments named in the tooltip at most (a tooltip is a line or two, not a list of fifty). */
const TOOLTIP_NAMES = 5;

/**
 * Every environment's live connection down at once (three or more of them: two may well share a
 * host): the machine is probably offline. One state for the machine, said once, instead of one
 * per environment.
 */
export function offline(environments: readonly Pick<EnvironmentStatusView, 'notWatching'>[]): boolean {
  return environments.length >= OFFLINE_FROM && environments.every((e) => e.notWatching?.startsWith('live connection down'));
}

/** Tooltip of the tray icon: the unread count, then what is not watched. */
export function trayTooltip(unread: number, environments: readonly Pick<EnvironmentStatusView, 'name' | 'notWatching'>[] = []): string {
  const base = unread === 0 ? 'Svc Monitor' : `Svc Monitor — ${unread} unread ${unread === 1 ? 'failure' : 'failures'}`;
  const gaps = environments.filter((e) => e.notWatching);
  if (gaps.length === 0) return base;
  if (offline(environments)) return `${base}\n⚠ Offline? Not watching any of the ${environments.length} environments`;
  const named = gaps.slice(0, TOOLTIP_NAMES).map((e) => `${e.name} (${e.notWatching})`);
  const more = gaps.length - named.length;
  return `${base}\n⚠ Not watching: ${named.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}

/**
 * The tray's icon: unread failures first (a new failure must change the tray even while some
 * environment is down; the warning stays in the tooltip, the menu and, on macOS, the title), then
 * the warning, then normal.
 */
export function trayState(unread: number, environments: readonly Pick<EnvironmentStatusView, 'notWatching'>[]): 'warning' | 'unread' | 'normal' {
  if (unread > 0) return 'unread';
  return environments.some((e) => e.notWatching) ? 'warning' : 'normal';
}
