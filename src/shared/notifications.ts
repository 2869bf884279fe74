/** Which environments raise native notifications (the inbox records every failure). */
export interface NotificationSettings {
  scope: 'all' | 'chosen';
  /** With scope `chosen`: the environments that notify. */
  chosenEnvironmentIds: string[];
  /** Never notify for these (and they do not count in the tray badge). */
  mutedEnvironmentIds: string[];
  /** Muted until the given instant (ISO 8601), e.g. "mute for 1 h"; not counted in the badge meanwhile. */
  mutedUntil?: Record<string, string>;
  /** Notify only for production environments (the inbox and badge still count all). */
  productionOnly?: boolean;
  /** Task types or queues of an environment that neither notify nor count in the badge for a while (the inbox still records them). */
  snoozes?: Snooze[];
  /** Local hours without desktop notifications (the inbox and badge still count every failure). */
  quietHours?: QuietHours;
}

/** One task type, or one queue (exactly one of the two), of one environment, silent until `until` (ISO 8601). */
export interface Snooze {
  environmentId: string;
  until: string;
  taskType?: string;
  queueName?: string;
}

/** From `from` to `to`, each "HH:MM" in the machine's local time; `to` before `from` spans midnight. */
export interface QuietHours {
  from: string;
  to: string;
}

/** Whether a failure of `environmentId` with this type and queue is snoozed at `now`. */
export function isSnoozed(settings: NotificationSettings, item: { environmentId: string; taskType: string; queueName?: string }, now: number): boolean {
  return (settings.snoozes ?? []).some(
    (s) =>
      s.environmentId === item.environmentId &&
      Date.parse(s.until) > now &&
      (s.taskType !== undefined ? s.taskType === item.taskType : s.queueName === item.queueName),
  );
}

const minutesOf = (hhmm: string): number => {
  const [h, m] = hhmm.split(':').map(Number);
  return (h ?? 0) * 60 + (m ?? 0);
};

/** Whether `now` (local time of this machine) falls in the quiet hours: from inclusive, to exclusive. */
export function inQuietHours(settings: NotificationSettings, now: number): boolean {
  const quiet = settings.quietHours;
  if (!quiet) return false;
  const from = minutesOf(quiet.from);
  const to = minutesOf(quiet.to);
  const date = new Date(now);
  const at = date.getHours() * 60 + date.getMinutes();
  if (from === to) return false;
  return from < to ? at >= from && at < to : at >= from || at < to;
}

/** The next instant a snooze or timed mute runs out (the badge counts again then), if any. */
export function nextExpiry(settings: NotificationSettings, now: number): number | undefined {
  const times = [...(settings.snoozes ?? []).map((s) => s.until), ...Object.values(settings.mutedUntil ?? {})].map(Date.parse).filter((t) => t > now);
  return times.length > 0 ? Math.min(...times) : undefined;
}

/** What a click on a notification (or the tray) opens. */
export type NotificationTarget =
  | { kind: 'task'; environmentId: string; taskId: string }
  | { kind: 'inbox'; environmentId?: string; burstId?: string }
  | { kind: 'environment'; environmentId: string }
  /** A dashboard page with its filters, e.g. `/tasks?status=Failed` (a deep link). */
  | { kind: 'route'; environmentId: string; path: string };
