import { z } from 'zod';
import { inQuietHours, type NotificationSettings } from '../../shared/notifications.js';
import type { Assert, SchemaMatches } from '../schemaMatches.js';

export const DEFAULT_NOTIFICATION_SETTINGS: NotificationSettings = { scope: 'all', chosenEnvironmentIds: [], mutedEnvironmentIds: [] };

const id = z.string().min(1).max(64);
const hhmm = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time as HH:MM (00:00 to 23:59)');
const snoozeSchema = z
  .strictObject({ environmentId: id, until: z.iso.datetime({ offset: true }), taskType: z.string().min(1).max(500).optional(), queueName: z.string().min(1).max(200).optional() })
  .refine((s) => (s.taskType === undefined) !== (s.queueName === undefined), 'a snooze names a task type or a queue (one of the two)');
export const notificationSettingsSchema = z.strictObject({
  scope: z.enum(['all', 'chosen']),
  chosenEnvironmentIds: z.array(id).max(1000),
  mutedEnvironmentIds: z.array(id).max(1000),
  mutedUntil: z.record(id, z.iso.datetime({ offset: true })).optional(),
  productionOnly: z.boolean().optional(),
  snoozes: z.array(snoozeSchema).max(1000).optional(),
  quietHours: z.strictObject({ from: hhmm, to: hhmm }).optional(),
});

/** The schema parses to exactly the shared type the renderer reads (checked by the type-check). */
export type NotificationSettingsSchemaMatches = Assert<SchemaMatches<typeof notificationSettingsSchema, NotificationSettings>>;

/** Muted for good, or for now (a timed mute that has not run out). */
export function isMuted(settings: NotificationSettings, environmentId: string, now: number = Date.now()): boolean {
  if (settings.mutedEnvironmentIds.includes(environmentId)) return true;
  const until = settings.mutedUntil?.[environmentId];
  return until !== undefined && Date.parse(until) > now;
}

/** Whether failures of an environment count in the badge: not muted, within the scope. */
export function counts(settings: NotificationSettings, environmentId: string, now: number = Date.now()): boolean {
  if (isMuted(settings, environmentId, now)) return false;
  return settings.scope === 'all' || settings.chosenEnvironmentIds.includes(environmentId);
}

/** Whether failures of an environment raise a native notification (never in the quiet hours). */
export function notifies(settings: NotificationSettings, environmentId: string, now: number = Date.now(), isProduction?: boolean): boolean {
  if (!counts(settings, environmentId, now) || inQuietHours(settings, now)) return false;
  return !(settings.productionOnly === true && isProduction === false);
}
