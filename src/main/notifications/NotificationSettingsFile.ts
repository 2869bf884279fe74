import { join } from 'node:path';
import { readJsonFile } from '../files/readJsonFile.js';
import { writeFileAtomic } from '../files/writeFileAtomic.js';
import { DEFAULT_NOTIFICATION_SETTINGS, notificationSettingsSchema, type NotificationSettings } from './notificationSettings.js';

export const NOTIFICATION_SETTINGS_FILE = 'notification-settings.json';

/** Notification scope and mutes, kept under user-data (no secrets). */
export class NotificationSettingsFile {
  private readonly file: string;
  constructor(userDataDir: string) {
    this.file = join(userDataDir, NOTIFICATION_SETTINGS_FILE);
  }
  async load(): Promise<NotificationSettings> {
    const raw = await readJsonFile(this.file).catch(() => undefined);
    const parsed = notificationSettingsSchema.safeParse(raw);
    return parsed.success ? parsed.data : structuredClone(DEFAULT_NOTIFICATION_SETTINGS);
  }
  async save(settings: NotificationSettings): Promise<void> {
    await writeFileAtomic(this.file, JSON.stringify(settings, null, 2));
  }
}
