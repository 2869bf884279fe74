import { ApiProxy } from './api/ApiProxy.js';
import { ConsoleError } from './ConsoleError.js';
import { CredentialVault, type CredentialVaultOptions } from './credentials/CredentialVault.js';
import { OpenRequests } from './deepLinks/OpenRequests.js';
import { AllEnvironmentsSummary } from './environments/AllEnvironmentsSummary.js';
import { EnvironmentStore } from './environments/EnvironmentStore.js';
import { liveStatusOf } from './environmentStatus.js';
import { withinTime } from './lifecycle/withinTime.js';
import type { NetworkFor } from './network/environmentNetwork.js';
import { ProxyLogin } from './network/ProxyLogin.js';
import { ProxyLoginPrompts } from './network/ProxyLoginPrompts.js';
import { FailureInbox } from './notifications/FailureInbox.js';
import { FailureNotifier, type BadgeSink, type NotificationSink } from './notifications/FailureNotifier.js';
import { InboxChangeBatch } from './notifications/InboxChangeBatch.js';
import { InboxFile, type StoredInbox } from './notifications/InboxFile.js';
import { NotificationSettingsFile } from './notifications/NotificationSettingsFile.js';
import type { EnvironmentSession, EnvironmentSessionOptions } from './session/EnvironmentSession.js';
import { EnvironmentSessions } from './session/EnvironmentSessions.js';
import type { AppUpdater } from './update/UpdateStatus.js';
import { FailureBackfill } from './watch/FailureBackfill.js';
import { HubManager, type HubManagerOptions } from './watch/HubManager.js';
import { NotWatchingNotices } from './watch/NotWatchingNotices.js';
import { watchConditionOf, WatchGapTracker } from './watch/WatchGapTracker.js';
import type { SvcEvent } from '../../server/src/contracts/events.js';
import type { ApiResult } from '../../server/src/contracts/api.js';
import type { Environment, EnvironmentInput, EnvironmentPatch, ImportMode, ImportResult } from '../shared/environment.js';
import type { EnvironmentStatusView } from '../shared/environmentStatus.js';
import type { NotificationSettings, NotificationTarget } from '../shared/notifications.js';
import type { ProxyLoginAnswer } from '../shared/proxyLogin.js';
import type { RendererEvent } from '../shared/rendererEvents.js';
import type { SessionView } from '../shared/session.js';
import { isManagementAction, type ManagementAction, type ProxiedOperation } from '../shared/proxiedOperations.js';

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

/**
 * The console's main-process services wired together, without Electron: the store, vault,
 * one session per environment (`session/EnvironmentSessions`), the API proxy, the hub
 * connections, the back-fill (`watch/FailureBackfill`), the failure inbox and notifier, and
 * what the window is asked to open (`deepLinks/OpenRequests`). `src/main/index.ts` puts
 * Electron around it; tests and the e2e harness use it directly.
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
  private readonly listeners = new Set<Listener>();
  private readonly sessions: EnvironmentSessions;
  private readonly watch: WatchGapTracker;
  private readonly backfiller: FailureBackfill;
  private readonly notWatching: NotWatchingNotices;
  private readonly inboxChanges: InboxChangeBatch;
  private readonly proxyPrompts = new ProxyLoginPrompts((event) => this.emit(event));
  private readonly openRequests: OpenRequests;
  private updatingWatch = false;

  private constructor(
    readonly store: EnvironmentStore,
    readonly vault: CredentialVault,
    private readonly settingsFile: NotificationSettingsFile,
    settings: NotificationSettings,
    private readonly inboxFile: InboxFile,
    storedInbox: StoredInbox,
    private readonly options: ConsoleServicesOptions,
  ) {
    this.inbox.restore(storedInbox.items);
    this.openRequests = new OpenRequests(store, (event) => this.emit(event));
    this.watch = new WatchGapTracker({
      ...(options.watchGraceMs !== undefined ? { graceMs: options.watchGraceMs } : {}),
      onChange: (environmentId, gap, previous, condition) => {
        if (gap && !previous && !(condition.watching === false && condition.quiet)) this.notWatching.stoppedWatching(environmentId, gap);
        // A gap that starts when the grace period runs out: tell the window and the tray.
        if (!this.updatingWatch) this.emitStatus(environmentId);
      },
    });
    this.proxy = new ApiProxy({ session: (id) => this.sessions.get(id) });
    this.proxyLogin = new ProxyLogin({ vault, ask: (request) => this.proxyPrompts.ask(request), log: (message) => options.log?.('warn', message) });
    this.hub = new HubManager({
      ...options.hub,
      onEvent: (environmentId, event) => this.receive(environmentId, event),
      onBulkProgress: (environmentId, progress) => this.emit({ type: 'bulkProgress', environmentId, progress }),
      onState: (environmentId, state) => {
        this.emitStatus(environmentId);
        this.backfiller.hubChanged(environmentId, state);
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
    this.backfiller = new FailureBackfill({
      store,
      proxy: this.proxy,
      inbox: this.inbox,
      notifier: this.notifier,
      notifications: options.notifications,
      session: (id) => this.sessions.get(id),
      hubState: (id) => this.hub.state(id).state,
      seenUntil: storedInbox.seenUntil,
      changed: () => this.saveInbox(),
      ...(options.backfillCap !== undefined ? { cap: options.backfillCap } : {}),
      ...(options.pollFailuresEveryMs !== undefined ? { pollEveryMs: options.pollFailuresEveryMs } : {}),
      ...(options.log ? { log: options.log } : {}),
    });
    this.notWatching = new NotWatchingNotices({
      store,
      notifications: options.notifications,
      settings: () => this.notifier.getSettings(),
      gap: (id) => this.watch.gap(id),
      environments: () => this.environments(),
      ...(options.notWatchingGatherMs !== undefined ? { gatherMs: options.notWatchingGatherMs } : {}),
    });
    this.inboxChanges = new InboxChangeBatch((changes) => this.emit({ type: 'inbox', unread: this.inbox.unreadCount(), total: this.inbox.size, changes }), options.inboxEventDelayMs ?? 100);
    this.sessions = new EnvironmentSessions({
      store,
      vault,
      hub: this.hub,
      ...(options.session ? { session: options.session } : {}),
      ...(options.network ? { network: options.network } : {}),
      onSessionChange: (id) => this.emitStatus(id),
      onRemoved: (id) => {
        this.inbox.removeEnvironment(id);
        this.watch.remove(id);
      },
      onMoved: (id) => this.backfiller.restartClock(id),
      onSynced: (envs) => {
        for (const env of envs) this.refreshWatch(env);
        this.emit({ type: 'environments', environments: this.environments() });
      },
      ...(options.log ? { log: options.log } : {}),
    });
    this.inbox.onChange((change) => {
      this.saveInbox();
      this.inboxChanges.add(change);
    });
    // Errors are logged by the sync; a change made through the methods below also reports them to its caller.
    store.onChange(() => void this.sessions.sync().catch(() => undefined));
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
    await this.sessions.sync();
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
    this.backfiller.stopPolling();
    this.proxyPrompts.cancelAll();
    try {
      await waitFor('the environment sync', this.sessions.settled());
      this.inboxChanges.flush();
      await waitFor('the back-fills', this.backfiller.running());
      this.watch.dispose();
      this.notifier.dispose();
      await waitFor('closing the live connections', this.hub.stopAll());
      await waitFor('stopping the sessions', this.sessions.stopAll());
    } finally {
      // The inbox is the user's record of failures: written in every case.
      this.inboxChanges.flush();
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
    await this.sessions.sync();
    return this.statusOf(env);
  }

  async updateEnvironment(id: string, patch: EnvironmentPatch): Promise<EnvironmentStatusView> {
    const env = await this.store.update(id, patch);
    await this.sessions.sync();
    return this.statusOf(env);
  }

  async removeEnvironment(id: string): Promise<void> {
    await this.store.remove(id);
    await this.sessions.sync();
  }

  async importEnvironments(json: string, mode: ImportMode, confirmed = false): Promise<ImportResult> {
    const result = await this.store.importJson(json, mode, confirmed);
    await this.sessions.sync();
    return result;
  }

  // ---- sessions -----------------------------------------------------------------------

  session(environmentId: string): EnvironmentSession | undefined {
    return this.sessions.get(environmentId);
  }

  /** The environment's session; a `not-found` ConsoleError when there is no such environment. */
  requireSession(environmentId: string): EnvironmentSession {
    return this.sessions.require(environmentId);
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

  // ---- inbox, back-fill, notifications --------------------------------------------------

  async setNotificationSettings(settings: NotificationSettings): Promise<void> {
    this.notifier.setSettings(settings);
    await this.settingsFile.save(settings);
  }

  /** What failed since the environment was last watched, into the inbox (see `FailureBackfill`); resolves with the number added. */
  backfill(environmentId: string): Promise<number> {
    return this.backfiller.backfill(environmentId);
  }

  /** After a wake from sleep: back-fill every environment. */
  backfillAll(): Promise<void> {
    return this.backfiller.backfillAll();
  }

  /** An event from an environment's hub: to the renderer, the notifier and the back-fill clock. */
  receive(environmentId: string, event: SvcEvent): void {
    this.emit({ type: 'svcEvent', environmentId, event });
    this.notifier.handle(environmentId, event);
    this.backfiller.liveEvent(environmentId, event);
  }

  /** The user answered a proxy's credential prompt (null: cancelled). */
  answerProxyLogin(id: string, answer: ProxyLoginAnswer | null): void {
    this.proxyPrompts.answer(id, answer);
  }

  // ---- what the window opens, deep links ------------------------------------------------

  /** A notification was clicked: tell the renderer what to open (reading is the user's action). */
  open(target: NotificationTarget): void {
    this.openRequests.open(target);
  }

  /** What was last asked to open since the page (re)started loading (taken once). */
  takePendingOpen(): NotificationTarget | undefined {
    return this.openRequests.takePending();
  }

  /** The window's page starts loading (first load, reload after a crash): nothing is pending for it yet. */
  rendererLoading(): void {
    this.openRequests.rendererLoading();
  }

  /** `svc-monitor://<environment>/tasks/<id>` or `/<page>?<filters>` → an `open` event for the renderer. */
  openDeepLink(url: string): NotificationTarget {
    return this.openRequests.openDeepLink(url);
  }

  /** What a deep link would open, and in which environment (nothing is opened). */
  resolveDeepLink(url: string): { target: NotificationTarget; environment: Environment } {
    return this.openRequests.resolveDeepLink(url);
  }

  /** The `svc-monitor:` link that opens `target` (undefined for a target without an environment). */
  linkFor(target: NotificationTarget): string | undefined {
    return this.openRequests.linkFor(target);
  }

  // ---- internals ----------------------------------------------------------------------

  private saveInbox(): void {
    this.inboxFile.schedule(() => ({ items: this.inbox.snapshot(), seenUntil: this.backfiller.snapshot() }));
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

  private emit(event: RendererEvent): void {
    for (const l of this.listeners) l(event);
  }
}
