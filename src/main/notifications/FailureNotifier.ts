import { randomUUID } from 'node:crypto';
import type { SvcEvent } from '../../../server/src/contracts/events.js';
import type { InboxItem } from '../../shared/inbox.js';
import { isSnoozed, nextExpiry, type NotificationSettings, type NotificationTarget } from '../../shared/notifications.js';
import type { FailureInbox } from './FailureInbox.js';
import { counts, DEFAULT_NOTIFICATION_SETTINGS, notifies } from './notificationSettings.js';


export interface FailureNotification {
  environmentId: string;
  burstId: string;
  title: string;
  body: string;
  isProduction: boolean;
  count: number;
  target: NotificationTarget;
}

/** Shows native notifications (Electron `Notification` in the wiring). */
export interface NotificationSink {
  show(notification: FailureNotification): void;
}
/** Shows the unread count (tray icon/tooltip, dock/taskbar badge in the wiring). */
export interface BadgeSink {
  setUnreadCount(count: number): void;
}

export interface EnvironmentInfo {
  id: string;
  name: string;
  isProduction: boolean;
}

export interface FailureNotifierOptions {
  inbox: FailureInbox;
  notifications: NotificationSink;
  badge: BadgeSink;
  environment: (id: string) => EnvironmentInfo | undefined;
  /** A burst gathers the failures of one environment for this long (default 4 s). */
  burstWindowMs?: number;
  /** How long a Timeout waits for its task's Failed (default: the burst window). */
  timeoutHoldMs?: number;
  settings?: NotificationSettings;
  /** After `max` notifications of one environment within `windowMs`, the rest wait for one digest (default 5 in 10 min). */
  coolDown?: { max: number; windowMs: number };
  now?: () => number;
}

interface Burst {
  id: string;
  items: InboxItem[];
  timer: NodeJS.Timeout;
}

interface Digest {
  items: InboxItem[];
  timer: NodeJS.Timeout;
}

/**
 * Task Failed and Timeout events → the failure inbox, and one native notification per burst
 * and environment ("4 tasks failed in Production"), never one per event. Scope (all or
 * chosen environments) and per-environment mute apply to notifications and to the badge;
 * the inbox keeps every failure.
 */
export class FailureNotifier {
  private settings: NotificationSettings;
  private readonly bursts = new Map<string, Burst>();
  /** Per environment: when its recent notifications were shown (for the cool-down). */
  private readonly shownAt = new Map<string, number[]>();
  private readonly digests = new Map<string, Digest>();
  /** By environment and task: Timeouts not yet known to be a task's end (the hold's timer). */
  private readonly heldTimeouts = new Map<string, NodeJS.Timeout>();
  private burstSequence = 0;
  /** Burst ids are unique across runs: the inbox keeps the bursts of earlier runs. */
  private readonly runId = randomUUID().slice(0, 8);
  private readonly unsubscribe: () => void;
  private readonly now: () => number;
  private readonly coolDown: { max: number; windowMs: number };
  /** Counts the badge again when the next snooze or timed mute runs out. */
  private expiryTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: FailureNotifierOptions) {
    this.settings = options.settings ?? DEFAULT_NOTIFICATION_SETTINGS;
    this.now = options.now ?? Date.now;
    this.coolDown = options.coolDown ?? { max: 5, windowMs: 10 * 60_000 };
    this.unsubscribe = options.inbox.onChange(() => this.updateBadge());
    this.updateBadge();
  }

  getSettings(): NotificationSettings {
    return structuredClone(this.settings);
  }

  setSettings(settings: NotificationSettings): void {
    this.settings = structuredClone(settings);
    this.updateBadge();
  }

  /** Whether a failure neither notifies nor counts in the badge: its environment muted or out of scope, or its type or queue snoozed. */
  private silenced(item: InboxItem, now: number): boolean {
    return !counts(this.settings, item.environmentId, now) || isSnoozed(this.settings, item, now);
  }

  /**
   * Feed every hub event here; only Failed and Timeout count. A Timeout is one attempt's end:
   * it is held until the task's next event. A Failed right after it (the last attempt timed
   * out) makes one inbox item, a timeout; a retry starting or the task ending otherwise drops
   * it, as does no Failed within the hold (a retry waits its backoff): a task that succeeds on
   * its retry raises nothing.
   */
  handle(environmentId: string, event: SvcEvent, whileAway = false): void {
    const key = `${environmentId}\u0000${event.taskId}`;
    const held = this.heldTimeouts.get(key);
    if (held) {
      clearTimeout(held);
      this.heldTimeouts.delete(key);
    }
    if (event.kind === 'Timeout') {
      const timer = setTimeout(() => this.heldTimeouts.delete(key), this.options.timeoutHoldMs ?? this.options.burstWindowMs ?? 4_000);
      timer.unref?.();
      this.heldTimeouts.set(key, timer);
      return;
    }
    if (event.kind !== 'Failed') return;
    // The last attempt timed out: one item, saying so, at the task's end.
    const failure: SvcEvent & { kind: 'Failed' | 'Timeout' } = held ? { ...event, kind: 'Timeout' } : (event as SvcEvent & { kind: 'Failed' });
    this.addToBurst(environmentId, failure, whileAway);
  }

  private addToBurst(environmentId: string, event: SvcEvent & { kind: 'Failed' | 'Timeout' }, whileAway: boolean): void {
    const environment = this.options.environment(environmentId);
    if (!environment) return;
    let burst = this.bursts.get(environmentId);
    if (!burst) {
      const id = `b${this.runId}-${++this.burstSequence}`;
      const timer = setTimeout(() => this.flush(environmentId), this.options.burstWindowMs ?? 4_000);
      timer.unref?.();
      burst = { id, items: [], timer };
      this.bursts.set(environmentId, burst);
    }
    burst.items.push(this.options.inbox.add(environment, event, burst.id, whileAway));
  }

  /** Closes every open burst now (app quitting, tests). */
  flushAll(): void {
    for (const id of [...this.bursts.keys()]) this.flush(id);
  }

  dispose(): void {
    for (const b of this.bursts.values()) clearTimeout(b.timer);
    this.bursts.clear();
    for (const d of this.digests.values()) clearTimeout(d.timer);
    this.digests.clear();
    for (const h of this.heldTimeouts.values()) clearTimeout(h);
    this.heldTimeouts.clear();
    if (this.expiryTimer) clearTimeout(this.expiryTimer);
    this.unsubscribe();
  }

  private flush(environmentId: string): void {
    const burst = this.bursts.get(environmentId);
    if (!burst) return;
    clearTimeout(burst.timer);
    this.bursts.delete(environmentId);
    const environment = this.options.environment(environmentId);
    // Snoozed types and queues are in the inbox, not in the notification.
    const items = burst.items.filter((i) => !isSnoozed(this.settings, i, this.now()));
    if (!environment || items.length === 0 || !notifies(this.settings, environmentId, this.now(), environment.isProduction)) return;
    // A storm: after `max` notifications in the window, the rest wait for one digest.
    const now = this.now();
    const recent = (this.shownAt.get(environmentId) ?? []).filter((t) => now - t < this.coolDown.windowMs);
    this.shownAt.set(environmentId, recent);
    const digest = this.digests.get(environmentId);
    if (digest || recent.length >= this.coolDown.max) {
      if (digest) digest.items.push(...items);
      else {
        const wait = Math.max(0, recent[0]! + this.coolDown.windowMs - now);
        const timer = setTimeout(() => this.flushDigest(environmentId), wait);
        timer.unref?.();
        this.digests.set(environmentId, { items: [...items], timer });
      }
      return;
    }
    recent.push(now);
    this.options.notifications.show(describeBurst(environment, burst.id, items));
  }

  private flushDigest(environmentId: string): void {
    const digest = this.digests.get(environmentId);
    if (!digest) return;
    clearTimeout(digest.timer);
    this.digests.delete(environmentId);
    const environment = this.options.environment(environmentId);
    if (!environment || !notifies(this.settings, environmentId, this.now(), environment.isProduction)) return;
    this.shownAt.set(environmentId, [this.now()]);
    this.options.notifications.show(describeDigest(environment, digest.items));
  }

  private updateBadge(): void {
    const now = this.now();
    this.options.badge.setUnreadCount(this.options.inbox.unreadCount((item) => !this.silenced(item, now)));
    if (this.expiryTimer) clearTimeout(this.expiryTimer);
    this.expiryTimer = undefined;
    const next = nextExpiry(this.settings, now);
    if (next !== undefined) {
      // setTimeout holds at most ~24.8 days; a longer snooze is looked at again then.
      this.expiryTimer = setTimeout(() => this.updateBadge(), Math.min(next - now + 1, 2 ** 31 - 1));
      this.expiryTimer.unref?.();
    }
  }
}

/** The one notification that sums up a storm's held-back failures. */
export function describeDigest(environment: EnvironmentInfo, items: readonly InboxItem[]): FailureNotification {
  const prefix = environment.isProduction ? '⚠ PRODUCTION · ' : '';
  return {
    environmentId: environment.id,
    burstId: items[0]?.burstId ?? 'digest',
    isProduction: environment.isProduction,
    count: items.length,
    title: `${prefix}${items.length} more ${items.length === 1 ? 'failure' : 'failures'} in ${environment.name}`,
    body: 'Notifications were paused after many in a short time; every failure is in the inbox.',
    target: { kind: 'inbox', environmentId: environment.id },
  };
}

/** The text of a burst's notification. */
export function describeBurst(environment: EnvironmentInfo, burstId: string, items: readonly InboxItem[]): FailureNotification {
  const count = items.length;
  const prefix = environment.isProduction ? '⚠ PRODUCTION · ' : '';
  const failed = items.filter((i) => i.kind === 'Failed').length;
  const timedOut = count - failed;
  if (count === 1) {
    const item = items[0]!;
    const shortType = item.taskType.split('.').pop() ?? item.taskType;
    return {
      environmentId: environment.id,
      burstId,
      isProduction: environment.isProduction,
      count,
      title: `${prefix}${item.kind === 'Failed' ? 'Task failed' : 'Task timed out'} in ${environment.name}`,
      body: `${shortType}: ${item.message}`.slice(0, 240),
      target: { kind: 'task', environmentId: environment.id, taskId: item.taskId },
    };
  }
  const parts = [failed > 0 ? `${failed} failed` : '', timedOut > 0 ? `${timedOut} timed out` : ''].filter(Boolean).join(', ');
  const types = [...new Set(items.map((i) => i.taskType.split('.').pop() ?? i.taskType))];
  return {
    environmentId: environment.id,
    burstId,
    isProduction: environment.isProduction,
    count,
    title: `${prefix}${count} tasks failed in ${environment.name}`,
    body: `${parts}: ${types.slice(0, 3).join(', ')}${types.length > 3 ? ` and ${types.length - 3} more types` : ''}`,
    target: { kind: 'inbox', environmentId: environment.id, burstId },
  };
}
