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

/** Show, environments with their status, the inbox with its unread count, quit. */
export function buildTrayMenuTemplate(environments: readonly EnvironmentStatusView[], unread: number): TrayMenuItem[] {
  const items: TrayMenuItem[] = [{ kind: 'action', id: 'show', label: 'Show Svc Monitor' }, { kind: 'separator' }];
  const gaps = environments.filter((e) => e.notWatching);
  if (gaps.length > 0) items.push({ kind: 'label', label: `⚠ Not watching ${gaps.length} of ${environments.length}` });
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

/** Tooltip of the tray icon; a warning first when some environment is not watched. */
export function trayTooltip(unread: number, environments: readonly Pick<EnvironmentStatusView, 'name' | 'notWatching'>[] = []): string {
  const base = unread === 0 ? 'Svc Monitor' : `Svc Monitor — ${unread} unread ${unread === 1 ? 'failure' : 'failures'}`;
  const gaps = environments.filter((e) => e.notWatching);
  if (gaps.length === 0) return base;
  return `${base}\n⚠ Not watching: ${gaps.map((e) => `${e.name} (${e.notWatching})`).join(', ')}`;
}

/** The tray's state: a warning beats unread, unread beats normal. */
export function trayState(unread: number, environments: readonly Pick<EnvironmentStatusView, 'notWatching'>[]): 'warning' | 'unread' | 'normal' {
  if (environments.some((e) => e.notWatching)) return 'warning';
  return unread > 0 ? 'unread' : 'normal';
}
