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
    const { scope, chosenEnvironmentIds, mutedEnvironmentIds, ...extras } = parsed.data;
    this.extras = extras;
    return { scope, chosenEnvironmentIds, mutedEnvironmentIds };
  }
  async save(settings: NotificationSettings): Promise<void> {
    await writeFileAtomic(this.file, JSON.stringify({ ...this.extras, ...settings }, null, 2));
  }
}
