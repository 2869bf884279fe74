import { join } from 'node:path';
import { z } from 'zod';
import { readJsonFile } from './files/readJsonFile.js';
import { writeFileAtomic } from './files/writeFileAtomic.js';
import { defaultCloseToTray } from './window/closeBehaviour.js';

export const PREFERENCES_FILE = 'preferences.json';

export interface DesktopPreferences {
  /** Closing the window keeps the console in the tray (true) or quits (false). */
  closeToTray: boolean;
  /** Start with the system (in the tray, without the window); off unless chosen. */
  startAtLogin?: boolean;
}

const schema = z.looseObject({ closeToTray: z.boolean().optional(), startAtLogin: z.boolean().optional() });

/** Desktop-shell preferences under user-data; unknown fields are kept, a bad file means defaults. */
export class DesktopPreferencesFile {
  private readonly file: string;
  private extras: Record<string, unknown> = {};
  private current: DesktopPreferences;

  constructor(userDataDir: string, private readonly platform: string = process.platform) {
    this.file = join(userDataDir, PREFERENCES_FILE);
    this.current = { closeToTray: defaultCloseToTray(platform) };
  }

  get(): DesktopPreferences {
    return { ...this.current };
  }

  async load(): Promise<DesktopPreferences> {
    const parsed = schema.safeParse(await readJsonFile(this.file).catch(() => undefined));
    if (parsed.success) {
      const { closeToTray, startAtLogin, ...extras } = parsed.data;
      this.extras = extras;
      this.current = { closeToTray: closeToTray ?? defaultCloseToTray(this.platform), ...(startAtLogin !== undefined ? { startAtLogin } : {}) };
    }
    return this.get();
  }

  async save(patch: Partial<DesktopPreferences>): Promise<DesktopPreferences> {
    this.current = { ...this.current, ...patch };
    await writeFileAtomic(this.file, JSON.stringify({ ...this.extras, ...this.current }, null, 2));
    return this.get();
  }
}
