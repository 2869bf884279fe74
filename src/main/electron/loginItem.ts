import { mkdir, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The argument a start at login passes: the console starts in the tray, without its window. */
export const HIDDEN_ARG = '--hidden';

/** The part of Electron's `app` that login items use. */
export interface LoginItemApp {
  setLoginItemSettings(settings: { openAtLogin: boolean; openAsHidden?: boolean; args?: string[] }): void;
  getLoginItemSettings(): { wasOpenedAsHidden?: boolean; wasOpenedAtLogin?: boolean };
}

export interface LoginItemContext {
  platform: string;
  app: LoginItemApp;
  /** What the autostart entry runs (an AppImage's own file, not its temporary mount). */
  executable: string;
  /** Linux: the XDG autostart folder (default `$XDG_CONFIG_HOME/autostart` or `~/.config/autostart`). */
  autostartDir?: string;
}

const DESKTOP_FILE = 'svc-monitor.desktop';

/** Linux's freedesktop autostart folder. */
export function defaultAutostartDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env['XDG_CONFIG_HOME'] || join(homedir(), '.config'), 'autostart');
}

/** The autostart entry that starts the console in the tray at login. */
export function autostartEntry(executable: string): string {
  const quoted = /[\s"'\\$`]/.test(executable) ? `"${executable.replace(/(["\\$`])/g, '\\$1')}"` : executable;
  return ['[Desktop Entry]', 'Type=Application', 'Name=Svc Monitor', 'Comment=Background task monitoring console', `Exec=${quoted} ${HIDDEN_ARG}`, 'X-GNOME-Autostart-enabled=true', 'NoDisplay=false', ''].join('\n');
}

/**
 * Starts the console at login (minimized to the tray) or stops doing so: the system's login
 * items on macOS and Windows, an XDG autostart entry on Linux.
 */
export async function applyStartAtLogin(enabled: boolean, context: LoginItemContext): Promise<void> {
  if (context.platform === 'linux') {
    const dir = context.autostartDir ?? defaultAutostartDir();
    const file = join(dir, DESKTOP_FILE);
    if (!enabled) return rm(file, { force: true });
    await mkdir(dir, { recursive: true });
    await writeFile(file, autostartEntry(context.executable));
    return;
  }
  context.app.setLoginItemSettings({ openAtLogin: enabled, openAsHidden: true, args: [HIDDEN_ARG] });
}

/**
 * Whether this start came from a login item: then only the tray shows. Linux and Windows pass
 * `--hidden`; a macOS login item takes no arguments, and since macOS 13 `wasOpenedAsHidden` is
 * always false, so there any start by the login item (`wasOpenedAtLogin`) is a start in the
 * tray (the app's login item exists only for that).
 */
export function startedAtLogin(argv: readonly string[], app: LoginItemApp, platform: string): boolean {
  if (argv.includes(HIDDEN_ARG)) return true;
  if (platform !== 'darwin') return false;
  const settings = app.getLoginItemSettings();
  return settings.wasOpenedAtLogin === true || settings.wasOpenedAsHidden === true;
}
