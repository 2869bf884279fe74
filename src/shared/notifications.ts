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
}

/** What a click on a notification (or the tray) opens. */
export type NotificationTarget =
  | { kind: 'task'; environmentId: string; taskId: string }
  | { kind: 'inbox'; environmentId?: string; burstId?: string }
  | { kind: 'environment'; environmentId: string }
  /** A dashboard page with its filters, e.g. `/tasks?status=Failed` (a deep link). */
  | { kind: 'route'; environmentId: string; path: string };
