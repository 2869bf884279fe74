import type { InboxItem } from '../../../shared/inbox.js';
import type { NotificationSettings, Snooze } from '../../../shared/notifications.js';

/** The snooze lengths offered, in hours. */
export const SNOOZE_HOURS = [1, 8, 24] as const;

/** What a snooze silences, as people say it: "Send in Production" or "queue reports in Production". */
export function describeSnooze(snooze: Snooze, environmentName: string): string {
  const what = snooze.taskType !== undefined ? `type ${snooze.taskType.split('.').pop()}` : `queue ${snooze.queueName}`;
  return `${what} in ${environmentName}`;
}

/** A snooze of the item's type (or queue) in its environment for `hours` from `now`. */
export function snoozeOf(item: InboxItem, by: 'type' | 'queue', hours: number, now: number): Snooze {
  const until = new Date(now + hours * 3_600_000).toISOString();
  return by === 'type' ? { environmentId: item.environmentId, taskType: item.taskType, until } : { environmentId: item.environmentId, queueName: item.queueName ?? '', until };
}

const sameTarget = (a: Snooze, b: Snooze) => a.environmentId === b.environmentId && a.taskType === b.taskType && a.queueName === b.queueName;

/** The settings with `snooze` added (replacing one of the same type or queue); snoozes that ran out are dropped. */
export function withSnooze(settings: NotificationSettings, snooze: Snooze, now: number): NotificationSettings {
  const kept = (settings.snoozes ?? []).filter((s) => Date.parse(s.until) > now && !sameTarget(s, snooze));
  return { ...settings, snoozes: [...kept, snooze] };
}

/** The settings without `snooze`. */
export function withoutSnooze(settings: NotificationSettings, snooze: Snooze): NotificationSettings {
  return { ...settings, snoozes: (settings.snoozes ?? []).filter((s) => !sameTarget(s, snooze)) };
}
