import type { BrowserWindow } from 'electron';

export interface CrashNotices {
  log(level: 'warn' | 'error', message: string): void;
  /** Tells the user (a non-blocking message box in the app). */
  notice(title: string, message: string): void;
}

/** At most this many reloads within `windowMs`: a page that crashes on every load is not reloaded forever. */
export interface ReloadLimit {
  max: number;
  windowMs: number;
}
export const DEFAULT_RELOAD_LIMIT: ReloadLimit = { max: 3, windowMs: 5 * 60_000 };

/**
 * Whether one more reload is allowed, given the times of the earlier ones (kept in `times`,
 * pruned to the window; the allowed reload is recorded).
 */
export function reloadAllowed(times: number[], now: number, limit: ReloadLimit = DEFAULT_RELOAD_LIMIT): boolean {
  while (times.length > 0 && now - times[0]! >= limit.windowMs) times.shift();
  if (times.length >= limit.max) return false;
  times.push(now);
  return true;
}

/**
 * A window whose page crashed or was killed (`render-process-gone`) is reloaded, and the user
 * is told why. A page that hangs (`unresponsive`) is given a moment, then reloaded with the
 * same notice unless it answered meanwhile (`responsive`). A page that keeps failing (more
 * than `limit.max` reloads within `limit.windowMs`) is left as it is, with a message saying so.
 */
export function reloadCrashedRenderer(window: BrowserWindow, notices: CrashNotices, hangGraceMs = 10_000, limit: ReloadLimit = DEFAULT_RELOAD_LIMIT, now: () => number = Date.now): void {
  const contents = window.webContents;
  let hang: NodeJS.Timeout | undefined;
  const reloads: number[] = [];
  const reload = (reason: string) => {
    if (window.isDestroyed()) return;
    if (!reloadAllowed(reloads, now(), limit)) {
      notices.log('error', `renderer ${reason}: not reloading again (${limit.max} reloads within ${Math.round(limit.windowMs / 60_000)} min)`);
      notices.notice(
        'The window keeps failing',
        `The console's window ${reason}, as it did after each of the last ${limit.max} reloads, so it is not reloaded again. Failure notifications keep arriving. Restart Svc Monitor; if this repeats, Help → Copy diagnostics collects what support needs.`,
      );
      return;
    }
    notices.log('error', `renderer ${reason}: reloading the window`);
    contents.reload();
    notices.notice('The window was reloaded', `The console's window ${reason} and was reloaded. Your environments and the failure inbox are unaffected.`);
  };
  contents.on('render-process-gone', (_event, details) => {
    // A clean exit is the window closing, not a crash.
    if (details.reason === 'clean-exit') return;
    reload(`stopped (${details.reason}, exit code ${details.exitCode})`);
  });
  contents.on('unresponsive', () => {
    if (hang) return;
    notices.log('warn', 'renderer not responding');
    hang = setTimeout(() => {
      hang = undefined;
      reload(`stopped responding for ${Math.round(hangGraceMs / 1000)} s`);
    }, hangGraceMs);
  });
  contents.on('responsive', () => {
    if (hang) clearTimeout(hang);
    hang = undefined;
  });
}

/**
 * An error nothing caught in the main process: logged every time, shown to the user once per
 * run (a loop of dialogs would help nobody).
 */
export function reportUncaughtOnce(notices: CrashNotices): (kind: string, err: unknown) => void {
  let shown = false;
  return (kind, err) => {
    const message = err instanceof Error ? `${err.message}${err.stack ? `\n${err.stack}` : ''}` : String(err);
    notices.log('error', `${kind}: ${message}`);
    if (shown) return;
    shown = true;
    notices.notice('Svc Monitor hit an unexpected error', `${err instanceof Error ? err.message : String(err)}\n\nIt was written to the log; the console keeps running. Help → Copy diagnostics collects what support needs.`);
  };
}
