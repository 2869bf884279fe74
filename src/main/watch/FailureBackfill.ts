import type { SvcEvent } from '../../../server/src/contracts/events.js';
import type { LiveState } from '../../../server/src/contracts/liveConnection.js';
import type { TaskSummary } from '../../../server/src/contracts/task.js';
import type { ApiProxy } from '../api/ApiProxy.js';
import type { EnvironmentStore } from '../environments/EnvironmentStore.js';
import type { FailureNotifier, NotificationSink } from '../notifications/FailureNotifier.js';
import type { FailureInbox } from '../notifications/FailureInbox.js';
import type { EnvironmentSession } from '../session/EnvironmentSession.js';

export interface FailureBackfillOptions {
  store: EnvironmentStore;
  proxy: Pick<ApiProxy, 'call'>;
  inbox: Pick<FailureInbox, 'has'>;
  notifier: Pick<FailureNotifier, 'handle'>;
  notifications: NotificationSink;
  session: (environmentId: string) => EnvironmentSession | undefined;
  hubState: (environmentId: string) => LiveState;
  /** Per environment, the instant up to which failures were seen (from the inbox file). */
  seenUntil: Record<string, string>;
  /** The clock moved: the inbox file is written (soon). */
  changed: () => void;
  /** Failures one back-fill adds at most; past it a notification points to the Tasks page (default 1,000). */
  cap?: number;
  /** How often environments that can only poll are asked for new failures (default 60 s). */
  pollEveryMs?: number;
  log?: (level: 'warn' | 'error', message: string) => void;
}

/** Failures asked for per page by a back-fill. */
const BACKFILL_PAGE_SIZE = 100;
/** Before any failure: an environment without one back-fills everything that fails later. */
const EPOCH = new Date(0).toISOString();
/** When a task failed, by the server's clock. */
const failedAt = (task: TaskSummary): string => task.lastExecutionUtc ?? task.createdAtUtc;

/**
 * What failed while the console was not watching: per environment a clock (failures up to
 * `seenUntil` were seen, live or by a back-fill), moved by live events and by back-fills, which
 * run after a (re)connect, a wake from sleep, and on a schedule for environments that can only poll.
 */
export class FailureBackfill {
  private readonly seenUntil = new Map<string, string>();
  private readonly backfilling = new Map<string, Promise<number>>();
  /**
   * Environments whose live events move the back-fill clock: those back-filled since their hub last
   * connected. Until then a live event's time is held back (`heldSeen`), so that an event arriving
   * before the back-fill asks cannot move the clock past failures the back-fill has not fetched yet.
   */
  private readonly liveClock = new Set<string>();
  private readonly heldSeen = new Map<string, string>();
  private readonly pollTimer: NodeJS.Timeout;
  private readonly cap: number;

  constructor(private readonly options: FailureBackfillOptions) {
    this.cap = options.cap ?? 1_000;
    for (const [id, at] of Object.entries(options.seenUntil)) this.seenUntil.set(id, at);
    this.pollTimer = setInterval(() => this.backfillPolling(), options.pollEveryMs ?? 60_000);
    this.pollTimer.unref?.();
  }

  /** The clocks, as the inbox file keeps them. */
  snapshot(): Record<string, string> {
    return Object.fromEntries(this.seenUntil);
  }

  /** No more polling (quit). */
  stopPolling(): void {
    clearInterval(this.pollTimer);
  }

  /** The back-fills under way (quit waits for them, within its limit). */
  running(): Promise<number[]> {
    return Promise.all([...this.backfilling.values()]);
  }

  /** The environment's hub changed state: connected again (or for the first time this run), ask for what failed meanwhile. */
  hubChanged(environmentId: string, state: LiveState): void {
    if (state === 'connected') {
      // A back-fill that fails (the host went away again) is logged; the next connect or poll tries again.
      this.backfill(environmentId).catch((err: unknown) => {
        const name = this.options.store.get(environmentId)?.name ?? environmentId;
        this.options.log?.('warn', `${name}: back-fill failed: ${err instanceof Error ? err.message : String(err)}`);
      });
    } else this.liveClock.delete(environmentId);
  }

  /** A live failure event: it moves the clock once the environment was back-filled since it connected. */
  liveEvent(environmentId: string, event: SvcEvent): void {
    if (this.liveClock.has(environmentId)) this.markSeen(environmentId, event.eventDateUtc);
    else {
      const held = this.heldSeen.get(environmentId);
      if (held === undefined || event.eventDateUtc > held) this.heldSeen.set(environmentId, event.eventDateUtc);
    }
  }

  /** Another server's history is not new failures: its clock starts again at its newest failure (the first back-fill). */
  restartClock(environmentId: string): void {
    if (this.seenUntil.delete(environmentId)) this.options.changed();
  }

  /**
   * Asks an environment for the tasks that failed since the last failure or back-fill it saw
   * (after a reconnect, a wake from sleep, a restart, or on the polling schedule) and adds
   * them to the inbox marked "while you were away"; they notify like live failures. The first
   * time an environment is seen, it only starts the clock. Resolves with the number added.
   */
  backfill(environmentId: string): Promise<number> {
    const running = this.backfilling.get(environmentId);
    if (running) return running;
    const run = this.doBackfill(environmentId).finally(() => {
      this.backfilling.delete(environmentId);
      if (this.options.hubState(environmentId) === 'connected') this.liveClock.add(environmentId);
      const held = this.heldSeen.get(environmentId);
      this.heldSeen.delete(environmentId);
      if (held !== undefined) this.markSeen(environmentId, held);
    });
    this.backfilling.set(environmentId, run);
    return run;
  }

  /** After a wake from sleep: back-fill every environment. */
  async backfillAll(): Promise<void> {
    await Promise.all(this.options.store.list().map((e) => this.backfill(e.id).catch(() => 0)));
  }

  private markSeen(environmentId: string, at: string): void {
    const current = this.seenUntil.get(environmentId);
    if (current === undefined || at > current) {
      this.seenUntil.set(environmentId, at);
      this.options.changed();
    }
  }

  private backfillPolling(): void {
    for (const env of this.options.store.list()) {
      if (this.options.hubState(env.id) === 'unavailable' && this.options.session(env.id)?.view().auth === 'authenticated') void this.backfill(env.id).catch(() => 0);
    }
  }

  private async doBackfill(environmentId: string): Promise<number> {
    const session = this.options.session(environmentId);
    if (!session || session.view().auth !== 'authenticated') return 0;
    const since = this.seenUntil.get(environmentId);
    // Newest failure first, a page at a time, until one seen before (or the cap). Times are
    // the server's: the desktop's clock may be off.
    const found: TaskSummary[] = [];
    let capped = false;
    for (let page = 1; ; page++) {
      const result = await this.options.proxy.call(environmentId, 'tasks.list', { statuses: ['Failed'], sortBy: 'LastExecutionUtc', sortDescending: true, page, pageSize: since === undefined ? 1 : BACKFILL_PAGE_SIZE });
      const newer = result.items.filter((t) => since === undefined || failedAt(t) > since);
      found.push(...newer);
      if (since === undefined || newer.length < result.items.length || result.items.length < BACKFILL_PAGE_SIZE || page >= result.totalPages) break;
      if (found.length >= this.cap) {
        capped = true;
        break;
      }
    }
    if (since === undefined) {
      // The first time an environment is seen only starts the clock: at its newest failure.
      this.markSeen(environmentId, found[0] ? failedAt(found[0]) : EPOCH);
      return 0;
    }
    let added = 0;
    for (const task of found.slice(0, this.cap).reverse()) {
      const at = failedAt(task);
      if (this.options.inbox.has(environmentId, task.id, at)) continue;
      const event: SvcEvent = {
        kind: 'Failed',
        taskId: task.id,
        eventDateUtc: at,
        severity: 'Error',
        taskType: task.type,
        queueName: task.queueName,
        message: task.errorSummary ?? 'Failed while the console was not watching',
      };
      this.options.notifier.handle(environmentId, event, true);
      this.markSeen(environmentId, at);
      added++;
    }
    if (capped) this.notifyCapped(environmentId);
    return added;
  }

  /** A back-fill stopped at its cap: the older failures are on the environment's Tasks page, not in the inbox. */
  private notifyCapped(environmentId: string): void {
    const env = this.options.store.get(environmentId);
    if (!env) return;
    const message = `more than ${this.cap} tasks failed while the console was not watching; the inbox has the newest ${this.cap}, the Tasks page lists them all`;
    this.options.log?.('warn', `${env.name}: back-fill: ${message}`);
    this.options.notifications.show({
      environmentId,
      burstId: `backfill-${environmentId}`,
      isProduction: env.isProduction,
      count: 0,
      title: `${env.isProduction ? '⚠ PRODUCTION · ' : ''}Back-fill stopped at ${this.cap} failures in ${env.name}`,
      body: `${message[0]!.toUpperCase()}${message.slice(1)}.`.slice(0, 240),
      target: { kind: 'route', environmentId, path: '/tasks?status=Failed' },
    });
  }
}
