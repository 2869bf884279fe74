import type { EnvironmentStatusView } from '../../shared/environmentStatus.js';
import type { NotificationSettings } from '../../shared/notifications.js';
import type { EnvironmentStore } from '../environments/EnvironmentStore.js';
import type { NotificationSink } from '../notifications/FailureNotifier.js';
import { notifies } from '../notifications/notificationSettings.js';
import { offline } from '../tray/trayMenuTemplate.js';
import { notWatchingNotice, type StoppedWatching } from './notWatchingNotice.js';

export interface NotWatchingNoticesOptions {
  store: Pick<EnvironmentStore, 'get'>;
  notifications: NotificationSink;
  settings: () => NotificationSettings;
  /** The environment's watch gap now (undefined: watched again). */
  gap: (environmentId: string) => string | undefined;
  environments: () => EnvironmentStatusView[];
  /** Notices starting within this long go out as one (default 2 s). */
  gatherMs?: number;
}

/**
 * A production environment stopped being watched: its notice waits a moment for others (a
 * network drop stops them all within a second or two) and goes out as one notice for all of them.
 */
export class NotWatchingNotices {
  /** Production environments whose watching stopped since the last notice. */
  private readonly stopped = new Map<string, StoppedWatching>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: NotWatchingNoticesOptions) {}

  stoppedWatching(environmentId: string, reason: string): void {
    const env = this.options.store.get(environmentId);
    if (!env?.isProduction || !notifies(this.options.settings(), environmentId, Date.now(), true)) return;
    this.stopped.set(environmentId, { environmentId, name: env.name, reason });
    if (this.timer) return;
    this.timer = setTimeout(() => this.send(), this.options.gatherMs ?? 2_000);
    this.timer.unref?.();
  }

  private send(): void {
    this.timer = undefined;
    // Still not watched when the notice goes out (a quick recovery meanwhile says nothing).
    const stopped = [...this.stopped.values()].filter((s) => this.options.gap(s.environmentId) !== undefined);
    this.stopped.clear();
    if (stopped.length === 0) return;
    const all = this.options.environments();
    const notice = notWatchingNotice(stopped, all.length, offline(all));
    this.options.notifications.show({
      environmentId: notice.environmentId,
      burstId: stopped.length === 1 ? `watch-${notice.environmentId}` : 'watch-many',
      isProduction: true,
      count: 0,
      title: notice.title,
      body: notice.body,
      target: { kind: 'environment', environmentId: notice.environmentId },
    });
  }
}
