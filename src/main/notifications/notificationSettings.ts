import { z } from 'zod';

/** Which environments raise native notifications (the inbox records every failure). */
export interface NotificationSettings {
  scope: 'all' | 'chosen';
  /** With scope `chosen`: the environments that notify. */
  chosenEnvironmentIds: string[];
  /** Never notify for these (and they do not count in the tray badge). */
  mutedEnvironmentIds: string[];
}

export const DEFAULT_NOTIFICATION_SETTINGS: NotificationSettings = { scope: 'all', chosenEnvironmentIds: [], mutedEnvironmentIds: [] };

const id = z.string().min(1).max(64);
export const notificationSettingsSchema = z.strictObject({
  scope: z.enum(['all', 'chosen']),
  chosenEnvironmentIds: z.array(id).max(1000),
  mutedEnvironmentIds: z.array(id).max(1000),
});

export function notifies(settings: NotificationSettings, environmentId: string): boolean {
  if (settings.mutedEnvironmentIds.includes(environmentId)) return false;
  return settings.scope === 'all' || settings.chosenEnvironmentIds.includes(environmentId);
}
