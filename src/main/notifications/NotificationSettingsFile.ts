import { join } from 'node:path';
import { readJsonFile } from '../files/readJsonFile.js';
import { writeFileAtomic } from '../files/writeFileAtomic.js';
import type { NotificationSettings } from '../../shared/notifications.js';
import { DEFAULT_NOTIFICATION_SETTINGS, notificationSettingsSchema } from './notificationSettings.js';

export const NOTIFICATION_SETTINGS_FILE = 'notification-settings.json';

/**
 * Notification scope and mutes, kept under user-data (no secrets). Fields this version does
 * not know are kept and written back.
 */
export class NotificationSettingsFile {
  private readonly file: string;
  private extras: Record<string, unknown> = {};
  constructor(userDataDir: string) {
    this.file = join(userDataDir, NOTIFICATION_SETTINGS_FILE);
  }
  async load(): Promise<NotificationSettings> {
    const raw = await readJsonFile(this.file).catch(() => undefined);
    const parsed = notificationSettingsSchema.loose().safeParse(raw);
    if (!parsed.success) return structuredClone(DEFAULT_NOTIFICATION_SETTINGS);
    // Every field the schema knows is a setting (timed mutes, snoozes, quiet hours included); the rest are kept aside.
    const known = new Set(Object.keys(notificationSettingsSchema.shape));
    const settings: Record<string, unknown> = {};
    this.extras = {};
    for (const [key, value] of Object.entries(parsed.data)) (known.has(key) ? settings : this.extras)[key] = value;
    return notificationSettingsSchema.parse(settings);
  }
  async save(settings: NotificationSettings): Promise<void> {
    await writeFileAtomic(this.file, JSON.stringify({ ...this.extras, ...settings }, null, 2));
  }
}
