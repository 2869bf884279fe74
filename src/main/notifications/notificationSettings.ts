import { z } from 'zod';
import type { NotificationSettings } from '../../shared/notifications.js';
import type { Assert, SchemaMatches } from '../schemaMatches.js';

export const DEFAULT_NOTIFICATION_SETTINGS: NotificationSettings = { scope: 'all', chosenEnvironmentIds: [], mutedEnvironmentIds: [] };

const id = z.string().min(1).max(64);
export const notificationSettingsSchema = z.strictObject({
  scope: z.enum(['all', 'chosen']),
  chosenEnvironmentIds: z.array(id).max(1000),
  mutedEnvironmentIds: z.array(id).max(1000),
  mutedUntil: z.record(id, z.iso.datetime({ offset: true })).optional(),
  productionOnly: z.boolean().optional(),
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

/** Whether failures of an environment raise a native notification. */
export function notifies(settings: NotificationSettings, environmentId: string, now: number = Date.now(), isProduction?: boolean): boolean {
  if (!counts(settings, environmentId, now)) return false;
  return !(settings.productionOnly === true && isProduction === false);
}
