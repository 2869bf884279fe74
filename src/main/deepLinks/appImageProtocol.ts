import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** The desktop entry the AppImage writes for its links (beside, not over, a deb's svc-monitor.desktop). */
export const APPIMAGE_DESKTOP_FILE = 'svc-monitor-appimage.desktop';

export interface AppImageProtocolOptions {
  platform: NodeJS.Platform;
  /** The process environment: APPIMAGE (set by the AppImage runtime), XDG_DATA_HOME, HOME. */
  env: Readonly<Record<string, string | undefined>>;
  scheme: string;
  /** The window's app id (package.json desktopName without .desktop): docks group the window with the entry. */
  wmClass: string;
  /** Runs a command (xdg-mime); rejects when it fails. */
  run?: (command: string, args: string[]) => Promise<void>;
  log: { info(message: string): void; warn(message: string): void };
}

export type AppImageRegistration = 'registered' | 'unchanged' | 'not-an-appimage';

/**
 * Whether Electron's `setAsDefaultProtocolClient` may declare the link handler. Not for an
 * AppImage: on Linux it makes `<desktopName>.desktop` (the deb's entry, absent beside an
 * AppImage) the handler at every start, undoing the AppImage's own entry from the second
 * start on; `registerAppImageProtocol` declares it instead.
 */
export function electronDeclaresScheme(platform: NodeJS.Platform, env: Readonly<Record<string, string | undefined>>): boolean {
  return !(platform === 'linux' && env['APPIMAGE']);
}

/**
 * An AppImage is not installed, so nothing tells the desktop that it opens `svc-monitor:`
 * links. On its first run (and again when the file has moved) it writes a hidden desktop entry
 * to ~/.local/share/applications that starts this AppImage with the link, and makes it the
 * default handler of the scheme with `xdg-mime`. Other packages (deb, Windows, macOS) declare
 * the scheme when they are installed. Failures are logged, never thrown.
 */
export async function registerAppImageProtocol(options: AppImageProtocolOptions): Promise<AppImageRegistration> {
  const appImage = options.env['APPIMAGE'];
  if (options.platform !== 'linux' || !appImage) return 'not-an-appimage';
  const dataHome = options.env['XDG_DATA_HOME'] || join(options.env['HOME'] || homedir(), '.local', 'share');
  const dir = join(dataHome, 'applications');
  const file = join(dir, APPIMAGE_DESKTOP_FILE);
  const entry = desktopEntry(appImage, options.scheme, options.wmClass);
  const existing = await readFile(file, 'utf8').catch(() => undefined);
  if (existing === entry) return 'unchanged';
  const run = options.run ?? ((command: string, args: string[]) => promisify(execFile)(command, args, { env: { ...process.env, ...options.env } }).then(() => undefined));
  try {
    await mkdir(dir, { recursive: true });
    await writeFile(file, entry);
  } catch (err) {
    options.log.warn(`cannot register the ${options.scheme}: link handler (${file}): ${(err as Error).message}`);
    return 'unchanged';
  }
  try {
    await run('xdg-mime', ['default', APPIMAGE_DESKTOP_FILE, `x-scheme-handler/${options.scheme}`]);
    options.log.info(`registered ${file} as the ${options.scheme}: link handler`);
  } catch (err) {
    options.log.warn(`wrote ${file}, but xdg-mime could not make it the ${options.scheme}: link handler: ${(err as Error).message}`);
  }
  return 'registered';
}

/**
 * A path as one argument of a desktop entry's Exec key. Plain when it has no reserved
 * character (simple parsers, xdg-utils' among them, do not undo quotes); otherwise quoted, with
 * " ` $ \ escaped by a backslash, then the backslashes doubled again (Exec is a string value).
 * % is doubled either way.
 */
function execArgument(path: string): string {
  if (!/[\s"'\\><~|&;$*?#()`]/.test(path)) return path.replace(/%/g, '%%');
  const quoted = `"${path.replace(/[\\"`$]/g, (c) => `\\${c}`)}"`;
  return quoted.replace(/\\/g, '\\\\').replace(/%/g, '%%');
}

function desktopEntry(appImage: string, scheme: string, wmClass: string): string {
  return [
    '[Desktop Entry]',
    'Type=Application',
    'Name=Svc Monitor',
    'Comment=Opens svc-monitor: task links in the Svc Monitor console (AppImage)',
    `Exec=${execArgument(appImage)} %U`,
    'Terminal=false',
    'NoDisplay=true',
    `MimeType=x-scheme-handler/${scheme};`,
    `StartupWMClass=${wmClass}`,
    '',
  ].join('\n');
}
