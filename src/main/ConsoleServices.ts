import { ApiProxy } from './api/ApiProxy.js';
import { ConsoleError } from './ConsoleError.js';
import { CredentialVault, type CredentialVaultOptions } from './credentials/CredentialVault.js';
import { DeepLinkError, formatTargetLink, parseDeepLink } from './deepLinks/parseDeepLink.js';
import { EnvironmentStore } from './environments/EnvironmentStore.js';
import { liveStatusOf } from './environmentStatus.js';
import { HubManager, type HubManagerOptions } from './hub/HubManager.js';
import type { NetworkFor } from './network/environmentNetwork.js';
import { FailureInbox } from './notifications/FailureInbox.js';
import { InboxFile, type StoredInbox } from './notifications/InboxFile.js';
import type { SvcEvent } from '../../server/src/contracts/events.js';
import type { TaskSummary } from '../../server/src/contracts/task.js';
import { FailureNotifier, type BadgeSink, type NotificationSink } from './notifications/FailureNotifier.js';
import { NotificationSettingsFile } from './notifications/NotificationSettingsFile.js';
import { notifies } from './notifications/notificationSettings.js';
import { watchConditionOf, WatchGapTracker } from './watch/WatchGapTracker.js';
import { notWatchingNotice, type StoppedWatching } from './watch/notWatchingNotice.js';
import { offline } from './tray/trayMenuTemplate.js';
import { EnvironmentSession, type EnvironmentSessionOptions } from './session/EnvironmentSession.js';
import type { Environment, EnvironmentInput, EnvironmentPatch, ImportMode, ImportResult } from '../shared/environment.js';
import type { EnvironmentStatusView } from '../shared/environmentStatus.js';
import type { InboxChange } from '../shared/inbox.js';
import type { NotificationSettings, NotificationTarget } from '../shared/notifications.js';
import type { RendererEvent } from '../shared/rendererEvents.js';
import type { SessionView } from '../shared/session.js';
import { isManagementAction, type ManagementAction, type ProxiedOperation } from '../shared/proxiedOperations.js';
import type { ApiResult } from '../../server/src/contracts/api.js';
import type { AppUpdater } from './update/UpdateStatus.js';
import { ProxyLogin } from './network/ProxyLogin.js';
import type { ProxyLoginAnswer } from '../shared/proxyLogin.js';
import { withinTime } from './lifecycle/withinTime.js';
import { AllEnvironmentsSummary } from './environments/AllEnvironmentsSummary.js';

export interface ConsoleServicesOptions {
  userDataDir: string;
  loadKeytar?: CredentialVaultOptions['loadKeytar'];
  safeStorage?: CredentialVaultOptions['safeStorage'];
  notifications: NotificationSink;
  badge: BadgeSink;
  session?: Omit<EnvironmentSessionOptions, 'vault' | 'network'>;
  /** How environments' hosts are reached: Electron's network in the app, Node's elsewhere. */
  network?: NetworkFor;
  hub?: Pick<HubManagerOptions, 'reconnectDelaysMs' | 'retryAfterFailureMs' | 'log'>;
  burstWindowMs?: number;
  /** How often environments that can only poll are asked for new failures (default 60 s). */
  pollFailuresEveryMs?: number;
  /** A live connection down this long counts as "not watching" (default 30 s). */
  watchGraceMs?: number;
  /** The app's updater, where this build has one (the About box and diagnostics show its state). */
  updater?: AppUpdater;
  /** Where the services' own problems are written (the log file in the app). */
  log?: (level: 'warn' | 'error', message: string) => void;
  /** The inbox's changes reach the renderer gathered over this long (default 100 ms). */
  inboxEventDelayMs?: number;
  /** Failures one back-fill adds at most; past it a notification points to the Tasks page (default 1,000). */
  backfillCap?: number;
  /** "Not watching" notices starting within this long go out as one (default 2 s). */
  notWatchingGatherMs?: number;
}

type Listener = (event: RendererEvent) => void;

/** Failures asked for per page by a back-fill. */
const BACKFILL_PAGE_SIZE = 100;
/** Before any failure: an environment without one back-fills everything that fails later. */
const EPOCH = new Date(0).toISOString();
const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));
/** When a task failed, by the server's clock. */
const failedAt = (task: TaskSummary): string => task.lastExecutionUtc ?? task.createdAtUtc;

/**
 * The console's main-process services wired together, without Electron: the store, vault,
 * one session per environment, the API proxy, the hub connections, the failure inbox and
 * notifier. `src/main/index.ts` puts Electron around it; tests and the e2e harness use it
 * directly.
 */
export class ConsoleServices {
  readonly inbox = new FailureInbox();
  readonly proxy: ApiProxy;
  readonly hub: HubManager;
  readonly notifier: FailureNotifier;
  /** Credentials for proxies that ask (407): the keychain, else a prompt in the window. */
  readonly proxyLogin: ProxyLogin;
  /** Every environment's health at a glance (the all-environments page and the tray's header line). */
  readonly summary = new AllEnvironmentsSummary({ environments: () => this.environments(), call: (id, operation, params) => this.callApi(id, operation, params) });
  private readonly proxyPrompts = new Map<string, (answer: ProxyLoginAnswer | null) => void>();
  private readonly sessions = new Map<string, EnvironmentSession>();
  private readonly listeners = new Set<Listener>();
  private readonly watch: WatchGapTracker;
  /** Per environment: failures up to this instant were seen (live or by a back-fill). */
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
  private updatingWatch = false;
  private pendingOpen: NotificationTarget | undefined;
  private inboxChanges: InboxChange[] = [];
  private inboxEventTimer: NodeJS.Timeout | undefined;
  private readonly backfillCap: number;
  /** Production environments whose watching stopped since the last "not watching" notice. */
  private readonly stoppedWatching = new Map<string, StoppedWatching>();
  private stoppedWatchingTimer: NodeJS.Timeout | undefined;

  private constructor(
    readonly store: EnvironmentStore,
    readonly vault: CredentialVault,
    private readonly settingsFile: NotificationSettingsFile,
    settings: NotificationSettings,
    private readonly inboxFile: InboxFile,
    storedInbox: StoredInbox,
    private readonly options: ConsoleServicesOptions,
  ) {
    this.backfillCap = options.backfillCap ?? 1_000;
    this.inbox.restore(storedInbox.items);
    for (const [id, at] of Object.entries(storedInbox.seenUntil)) this.seenUntil.set(id, at);
    this.pollTimer = setInterval(() => this.backfillPolling(), options.pollFailuresEveryMs ?? 60_000);
    this.pollTimer.unref?.();
    this.watch = new WatchGapTracker({
      ...(options.watchGraceMs !== undefined ? { graceMs: options.watchGraceMs } : {}),
      onChange: (environmentId, gap, previous, condition) => {
        if (gap && !previous && !(condition.watching === false && condition.quiet)) this.notifyNotWatching(environmentId, gap);
        // A gap that starts when the grace period runs out: tell the window and the tray.
        if (!this.updatingWatch) this.emitStatus(environmentId);
      },
    });
    this.proxy = new ApiProxy({ session: (id) => this.sessions.get(id) });
    this.proxyLogin = new ProxyLogin({
      vault,
      ask: (request) =>
        new Promise((resolve) => {
          this.proxyPrompts.set(request.id, resolve);
          this.emit({ type: 'proxyLogin', request });
        }),
      log: (message) => options.log?.('warn', message),
    });
    this.hub = new HubManager({
      ...options.hub,
      onEvent: (environmentId, event) => this.receive(environmentId, event),
      onBulkProgress: (environmentId, progress) => this.emit({ type: 'bulkProgress', environmentId, progress }),
      onState: (environmentId, state) => {
        this.emitStatus(environmentId);
        // Connected again (or for the first time this run): ask for what failed meanwhile.
        if (state === 'connected') void this.backfill(environmentId);
        else this.liveClock.delete(environmentId);
      },
    });
    this.notifier = new FailureNotifier({
      inbox: this.inbox,
      notifications: options.notifications,
      badge: options.badge,
      environment: (id) => this.store.get(id),
      settings,
      ...(options.burstWindowMs !== undefined ? { burstWindowMs: options.burstWindowMs } : {}),
    });
    this.inbox.onChange((change) => {
      this.saveInbox();
      this.queueInboxChange(change);
    });
    // Errors are logged by syncSessions; a change made through the methods below also reports them to its caller.
    store.onChange(() => void this.syncSessions().catch(() => undefined));
  }

  static async create(options: ConsoleServicesOptions): Promise<ConsoleServices> {
    const store = await EnvironmentStore.open(options.userDataDir);
    const vault = await CredentialVault.open({
      userDataDir: options.userDataDir,
      ...(options.loadKeytar ? { loadKeytar: options.loadKeytar } : {}),
      ...(options.safeStorage ? { safeStorage: options.safeStorage } : {}),
    });
    const settingsFile = new NotificationSettingsFile(options.userDataDir);
    const settings = await settingsFile.load();
    const inboxFile = new InboxFile(options.userDataDir);
    return new ConsoleServices(store, vault, settingsFile, settings, inboxFile, await inboxFile.load(), options);
  }

  /** The app's updater; undefined where this build has none. */
  get updater(): AppUpdater | undefined {
    return this.options.updater;
  }

  /** Starts a session (and its hub) for every environment. */
  async start(): Promise<void> {
    await this.syncSessions();
  }

  /**
   * Stops everything for quit, within `timeoutMs` in all (default 5 s): a sync, a back-fill (up to
   * ten pages of 15 s each) or a hub that does not answer must not hold the app open. The inbox is
   * written whatever happened before; what was cut short is returned and logged.
   */
  async dispose(options: { timeoutMs?: number } = {}): Promise<void> {
    await this.stopForQuit(options);
  }

  /** `dispose`, answering what it stopped waiting for. */
  async stopForQuit(options: { timeoutMs?: number } = {}): Promise<{ cutShort: string[] }> {
    const deadline = Date.now() + (options.timeoutMs ?? 5_000);
    const cutShort: string[] = [];
    const waitFor = async (what: string, work: Promise<unknown>) => {
      if (!(await withinTime(work.catch(() => undefined), deadline - Date.now())).done) cutShort.push(what);
    };
    clearInterval(this.pollTimer);
    for (const resolve of this.proxyPrompts.values()) resolve(null);
    this.proxyPrompts.clear();
    try {
      await waitFor('the environment sync', this.syncing);
      this.sendInboxChanges();
      await waitFor('the back-fills', Promise.all([...this.backfilling.values()]));
      this.watch.dispose();
      this.notifier.dispose();
      await waitFor('closing the live connections', this.hub.stopAll());
      await waitFor('stopping the sessions', Promise.all([...this.sessions.values()].map((s) => s.stop())));
      this.sessions.clear();
    } finally {
      // The inbox is the user's record of failures: written in every case.
      this.sendInboxChanges();
      await this.inboxFile.flush();
    }
    if (cutShort.length > 0) this.options.log?.('warn', `quit did not wait any longer for ${cutShort.join(', ')} (limit ${options.timeoutMs ?? 5_000} ms)`);
    return { cutShort };
  }

  onEvent(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // ---- environments -------------------------------------------------------------------

  environments(): EnvironmentStatusView[] {
    return this.store.list().map((e) => this.statusOf(e));
  }

  async addEnvironment(input: EnvironmentInput): Promise<EnvironmentStatusView> {
    const env = await this.store.add(input);
    await this.syncSessions();
    return this.statusOf(env);
  }

  async updateEnvironment(id: string, patch: EnvironmentPatch): Promise<EnvironmentStatusView> {
    const env = await this.store.update(id, patch);
    await this.syncSessions();
    return this.statusOf(env);
  }

  async removeEnvironment(id: string): Promise<void> {
    await this.store.remove(id);
    await this.syncSessions();
  }

  async importEnvironments(json: string, mode: ImportMode, confirmed = false): Promise<ImportResult> {
    const result = await this.store.importJson(json, mode, confirmed);
    await this.syncSessions();
    return result;
  }

  // ---- sessions -----------------------------------------------------------------------

  session(environmentId: string): EnvironmentSession | undefined {
    return this.sessions.get(environmentId);
  }

  /** The environment's session; a `not-found` ConsoleError when there is no such environment. */
  requireSession(environmentId: string): EnvironmentSession {
    const s = this.sessions.get(environmentId);
    if (!s) throw new ConsoleError('not-found', `Unknown environment "${environmentId}"`);
    return s;
  }

  // ---- API calls from the renderer ------------------------------------------------------

  /** A read (or any call) from the renderer; a management action on a production environment must come through `manage`. */
  callApi<Op extends ProxiedOperation>(environmentId: string, operation: Op, params: unknown): Promise<ApiResult<Op>> {
    if (isManagementAction(operation) && this.store.get(environmentId)?.isProduction) {
      return Promise.reject(new ConsoleError('forbidden', `${operation} on a production environment needs the typed confirmation`));
    }
    return this.proxy.call(environmentId, operation, params);
  }

  /**
   * A management action the user confirmed. On a production environment main checks the
   * confirmation itself: the environment's name, typed by the user (a renderer that skipped its
   * dialog gets nothing done).
   */
  manage(environmentId: string, operation: ManagementAction, params: unknown, confirmation: string): Promise<ApiResult<ManagementAction>> {
    const env = this.store.get(environmentId);
    if (!env) return Promise.reject(new ConsoleError('not-found', `Unknown environment "${environmentId}"`));
    if (env.isProduction && confirmation.trim() !== env.name) {
      return Promise.reject(new ConsoleError('forbidden', `${env.name} is a production environment: type its name to confirm ${operation}`));
    }
    return this.proxy.call(environmentId, operation, params);
  }

  // ---- inbox, notifications, deep links ------------------------------------------------------

  async setNotificationSettings(settings: NotificationSettings): Promise<void> {
    this.notifier.setSettings(settings);
    await this.settingsFile.save(settings);
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
      if (this.hub.state(environmentId).state === 'connected') this.liveClock.add(environmentId);
      const held = this.heldSeen.get(environmentId);
      this.heldSeen.delete(environmentId);
      if (held !== undefined) this.markSeen(environmentId, held);
    });
    this.backfilling.set(environmentId, run);
    return run;
  }

  /** After a wake from sleep: back-fill every environment. */
  async backfillAll(): Promise<void> {
    await Promise.all(this.store.list().map((e) => this.backfill(e.id).catch(() => 0)));
  }

  /** An event from an environment's hub: to the renderer, the notifier and the back-fill clock. */
  receive(environmentId: string, event: SvcEvent): void {
    this.emit({ type: 'svcEvent', environmentId, event });
    this.notifier.handle(environmentId, event);
    if (this.liveClock.has(environmentId)) this.markSeen(environmentId, event.eventDateUtc);
    else {
      const held = this.heldSeen.get(environmentId);
      if (held === undefined || event.eventDateUtc > held) this.heldSeen.set(environmentId, event.eventDateUtc);
    }
  }

  /** The user answered a proxy's credential prompt (null: cancelled). */
  answerProxyLogin(id: string, answer: ProxyLoginAnswer | null): void {
    const resolve = this.proxyPrompts.get(id);
    if (!resolve) throw new ConsoleError('not-found', `No proxy login prompt "${id}" is open`);
    this.proxyPrompts.delete(id);
    resolve(answer);
  }

  /** A notification was clicked: tell the renderer what to open (reading is the user's action). */
  open(target: NotificationTarget): void {
    this.pendingOpen = target;
    this.emit({ type: 'open', target });
  }

  /**
   * What was last asked to open since the page (re)started loading: a renderer that was not
   * listening yet takes it once it has started, instead of its remembered environment.
   */
  takePendingOpen(): NotificationTarget | undefined {
    const target = this.pendingOpen;
    this.pendingOpen = undefined;
    return target;
  }

  /** The window's page starts loading (first load, reload after a crash): nothing is pending for it yet. */
  rendererLoading(): void {
    this.pendingOpen = undefined;
  }

  /** `svc-monitor://<environment>/tasks/<id>` or `/<page>?<filters>` → an `open` event for the renderer. */
  openDeepLink(url: string): NotificationTarget {
    const { target } = this.resolveDeepLink(url);
    this.open(target);
    return target;
  }

  /** What a deep link would open, and in which environment (nothing is opened). */
  resolveDeepLink(url: string): { target: NotificationTarget; environment: Environment } {
    let link;
    try {
      link = parseDeepLink(url);
    } catch (err) {
      throw new ConsoleError('invalid-arguments', (err as DeepLinkError).message);
    }
    const env = this.store.find(link.environment);
    if (!env) throw new ConsoleError('not-found', `deep link: no environment named "${link.environment}"`);
    const target: NotificationTarget =
      'taskId' in link
        ? { kind: 'task', environmentId: env.id, taskId: link.taskId }
        : 'inbox' in link
          ? { kind: 'inbox', environmentId: env.id, ...link.inbox }
          : { kind: 'route', environmentId: env.id, path: link.path };
    return { target, environment: env };
  }

  /** The `svc-monitor:` link that opens `target` (undefined for a target without an environment). */
  linkFor(target: NotificationTarget): string | undefined {
    const env = 'environmentId' in target && target.environmentId ? this.store.get(target.environmentId) : undefined;
    return env ? formatTargetLink(env.name, target) : undefined;
  }

  // ---- internals ----------------------------------------------------------------------

  /**
   * The renderer gets the inbox's changes, gathered for a moment: a storm of failures is a few
   * messages a second with the new items, never the whole inbox per failure.
   */
  private queueInboxChange(change: InboxChange): void {
    const last = this.inboxChanges.at(-1);
    if (change.kind === 'added' && last?.kind === 'added') {
      last.items.unshift(...change.items);
      last.dropped.push(...change.dropped);
    } else this.inboxChanges.push(change.kind === 'added' ? { ...change, items: [...change.items], dropped: [...change.dropped] } : change);
    if (this.inboxEventTimer) return;
    this.inboxEventTimer = setTimeout(() => this.sendInboxChanges(), this.options.inboxEventDelayMs ?? 100);
    this.inboxEventTimer.unref?.();
  }

  private sendInboxChanges(): void {
    if (this.inboxEventTimer) clearTimeout(this.inboxEventTimer);
    this.inboxEventTimer = undefined;
    if (this.inboxChanges.length === 0) return;
    const changes = this.inboxChanges;
    this.inboxChanges = [];
    this.emit({ type: 'inbox', unread: this.inbox.unreadCount(), total: this.inbox.size, changes });
  }

  private saveInbox(): void {
    this.inboxFile.schedule(() => ({ items: this.inbox.snapshot(), seenUntil: Object.fromEntries(this.seenUntil) }));
  }

  private markSeen(environmentId: string, at: string): void {
    const current = this.seenUntil.get(environmentId);
    if (current === undefined || at > current) {
      this.seenUntil.set(environmentId, at);
      this.saveInbox();
    }
  }

  private backfillPolling(): void {
    for (const env of this.store.list()) {
      if (this.hub.state(env.id).state === 'unavailable' && this.sessions.get(env.id)?.view().auth === 'authenticated') void this.backfill(env.id).catch(() => 0);
    }
  }

  private async doBackfill(environmentId: string): Promise<number> {
    const session = this.sessions.get(environmentId);
    if (!session || session.view().auth !== 'authenticated') return 0;
    const since = this.seenUntil.get(environmentId);
    // Newest failure first, a page at a time, until one seen before (or the cap). Times are
    // the server's: the desktop's clock may be off.
    const found: TaskSummary[] = [];
    let capped = false;
    for (let page = 1; ; page++) {
      const result = await this.proxy.call(environmentId, 'tasks.list', { statuses: ['Failed'], sortBy: 'LastExecutionUtc', sortDescending: true, page, pageSize: since === undefined ? 1 : BACKFILL_PAGE_SIZE });
      const newer = result.items.filter((t) => since === undefined || failedAt(t) > since);
      found.push(...newer);
      if (since === undefined || newer.length < result.items.length || result.items.length < BACKFILL_PAGE_SIZE || page >= result.totalPages) break;
      if (found.length >= this.backfillCap) {
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
    for (const task of found.slice(0, this.backfillCap).reverse()) {
      const at = failedAt(task);
      if (this.inbox.has(environmentId, task.id, at)) continue;
      const event: SvcEvent = {
        kind: 'Failed',
        taskId: task.id,
        eventDateUtc: at,
        severity: 'Error',
        taskType: task.type,
        queueName: task.queueName,
        message: task.errorSummary ?? 'Failed while the console was not watching',
      };
      this.notifier.handle(environmentId, event, true);
      this.markSeen(environmentId, at);
      added++;
    }
    if (capped) this.notifyBackfillCapped(environmentId);
    return added;
  }

  /** A back-fill stopped at its cap: the older failures are on the environment's Tasks page, not in the inbox. */
  private notifyBackfillCapped(environmentId: string): void {
    const env = this.store.get(environmentId);
    if (!env) return;
    const message = `more than ${this.backfillCap} tasks failed while the console was not watching; the inbox has the newest ${this.backfillCap}, the Tasks page lists them all`;
    this.options.log?.('warn', `${env.name}: back-fill: ${message}`);
    this.options.notifications.show({
      environmentId,
      burstId: `backfill-${environmentId}`,
      isProduction: env.isProduction,
      count: 0,
      title: `${env.isProduction ? '⚠ PRODUCTION · ' : ''}Back-fill stopped at ${this.backfillCap} failures in ${env.name}`,
      body: `${message[0]!.toUpperCase()}${message.slice(1)}.`.slice(0, 240),
      target: { kind: 'route', environmentId, path: '/tasks?status=Failed' },
    });
  }

  private statusOf(env: Environment): EnvironmentStatusView {
    const session = this.sessions.get(env.id);
    const view: SessionView = session?.view() ?? {
      environmentId: env.id,
      auth: 'starting',
      canManage: false,
      managementEnabled: false,
      requireAuthentication: true,
      hasRememberedPassword: false,
    };
    const hub = this.hub.state(env.id);
    const live = liveStatusOf(view, hub);
    const gap = this.watch.gap(env.id);
    return { ...env, session: view, hub, live: live.live, ...(live.message ? { statusMessage: live.message } : {}), ...(gap ? { notWatching: gap } : {}) };
  }

  private emitStatus(environmentId: string): void {
    const env = this.store.get(environmentId);
    if (!env) return;
    this.refreshWatch(env);
    this.emit({ type: 'status', environment: this.statusOf(env) });
  }

  private refreshWatch(env: Environment): void {
    const session = this.sessions.get(env.id);
    if (!session) return;
    const live = liveStatusOf(session.view(), this.hub.state(env.id));
    this.updatingWatch = true;
    try {
      this.watch.update(env.id, watchConditionOf(live.live, live.message));
    } finally {
      this.updatingWatch = false;
    }
  }

  /** One notification when a production environment stops being watched. */
  /**
   * A production environment stopped being watched: its notice waits a moment for others (a
   * network drop stops them all within a second or two) and goes out as one notice for all of them.
   */
  private notifyNotWatching(environmentId: string, reason: string): void {
    const env = this.store.get(environmentId);
    if (!env?.isProduction || !notifies(this.notifier.getSettings(), environmentId, Date.now(), true)) return;
    this.stoppedWatching.set(environmentId, { environmentId, name: env.name, reason });
    if (this.stoppedWatchingTimer) return;
    this.stoppedWatchingTimer = setTimeout(() => this.sendNotWatching(), this.options.notWatchingGatherMs ?? 2_000);
    this.stoppedWatchingTimer.unref?.();
  }

  private sendNotWatching(): void {
    this.stoppedWatchingTimer = undefined;
    // Still not watched when the notice goes out (a quick recovery meanwhile says nothing).
    const stopped = [...this.stoppedWatching.values()].filter((s) => this.watch.gap(s.environmentId) !== undefined);
    this.stoppedWatching.clear();
    if (stopped.length === 0) return;
    const all = this.environments();
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


  private syncing: Promise<void> = Promise.resolve();

  /** Brings the sessions in line with the store, one sync at a time; a failed sync is logged and rejects its caller. */
  private syncSessions(): Promise<void> {
    const run = this.syncing.then(() => this.doSync());
    this.syncing = run.catch((err: unknown) => this.options.log?.('error', `updating the sessions failed: ${messageOf(err)}`));
    return run;
  }

  private async doSync(): Promise<void> {
    const envs = this.store.list();
    const ids = new Set(envs.map((e) => e.id));
    for (const [id, session] of this.sessions) {
      if (ids.has(id)) continue;
      // The session is forgotten last: a clean-up that fails (a locked keychain) is tried again by the next sync.
      await session.stop();
      await this.hub.unwatch(id);
      await this.vault.delete(id);
      this.inbox.removeEnvironment(id);
      this.watch.remove(id);
      this.sessions.delete(id);
    }
    const started: Promise<unknown>[] = [];
    for (const env of envs) {
      const existing = this.sessions.get(env.id);
      if (existing && existing.baseUrl !== env.baseUrl) {
        // A token or password belongs to the host it was issued by: never send it to a new address.
        await this.hub.unwatch(env.id);
        await this.vault.delete(env.id);
        // Another server's history is not new failures: its clock starts again at its newest failure (the first back-fill).
        if (this.seenUntil.delete(env.id)) this.saveInbox();
        await existing.replaceEnvironment(env);
        this.hub.watch(existing);
        continue;
      }
      if (existing) {
        // Same address, other settings: the session checks the host again in the background.
        void existing.replaceEnvironment(env).catch((err: unknown) => this.options.log?.('error', `${env.name}: applying the changed settings failed: ${messageOf(err)}`));
        continue;
      }
      const session = new EnvironmentSession(env, { ...this.options.session, vault: this.vault, ...(this.options.network ? { network: this.options.network } : {}) });
      this.sessions.set(env.id, session);
      session.onChange(() => this.emitStatus(env.id));
      this.hub.watch(session);
      started.push(session.start());
    }
    await Promise.all(started);
    for (const env of envs) this.refreshWatch(env);
    this.emit({ type: 'environments', environments: this.environments() });
  }

  private emit(event: RendererEvent): void {
    for (const l of this.listeners) l(event);
  }
}
