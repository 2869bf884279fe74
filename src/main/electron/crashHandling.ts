import type { BrowserWindow } from 'electron';

export interface CrashNotices {
  log(level: 'warn' | 'error', message: string): void;
  /** Tells the user (a non-blocking message box in the app). */
  notice(title: string, message: string): void;
}

/**
 * A window whose page crashed or was killed (`render-process-gone`) is reloaded, and the user
 * is told why. A page that hangs (`unresponsive`) is given a moment, then reloaded with the
 * same notice unless it answered meanwhile (`responsive`).
 */
export function reloadCrashedRenderer(window: BrowserWindow, notices: CrashNotices, hangGraceMs = 10_000): void {
  const contents = window.webContents;
  let hang: NodeJS.Timeout | undefined;
  const reload = (reason: string) => {
    if (window.isDestroyed()) return;
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
