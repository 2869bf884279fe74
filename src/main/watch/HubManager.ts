import { HubConnectionBuilder, HubConnectionState, LogLevel, type HubConnection, type IHttpConnectionOptions, type ILogger } from '@microsoft/signalr';
import type { SvcEvent } from '../../../server/src/contracts/events.js';
import { BULK_PROGRESS_TARGET, type BulkOperation } from '../../../server/src/contracts/operations.js';
import { interpretHubFailure, type LiveState } from '../../../server/src/contracts/liveConnection.js';
import type { EnvironmentSession } from '../session/EnvironmentSession.js';

export interface HubManagerOptions {
  onEvent: (environmentId: string, event: SvcEvent) => void;
  /** A bulk action's progress (the hub's BulkProgress invocations). */
  onBulkProgress?: (environmentId: string, progress: BulkOperation) => void;
  onState?: (environmentId: string, state: LiveState, message?: string) => void;
  /** Delays of the client's automatic reconnect (default 0, 2 s, 5 s, 10 s, 30 s). */
  reconnectDelaysMs?: number[];
  /** After reconnect gives up, try again from scratch after this long (default 30 s). */
  retryAfterFailureMs?: number;
  log?: (environmentId: string, level: 'warn' | 'error', message: string) => void;
}

interface Watched {
  session: EnvironmentSession;
  connection?: HubConnection;
  state: LiveState;
  message?: string;
  unsubscribe: () => void;
  retryTimer?: NodeJS.Timeout;
  starting?: Promise<void>;
}

/**
 * One `@microsoft/signalr` connection per watched environment: connects while the session
 * is authenticated, reconnects automatically, renews the session on Close "Token expired"
 * (or stops and leaves the re-login prompt to the session), forwards every `SvcEvent` and
 * every bulk action's progress.
 */
export class HubManager {
  private readonly watched = new Map<string, Watched>();

  constructor(private readonly options: HubManagerOptions) {}

  watch(session: EnvironmentSession): void {
    const id = session.environmentId;
    if (this.watched.has(id)) return;
    const entry: Watched = { session, state: 'idle', unsubscribe: () => undefined };
    this.watched.set(id, entry);
    entry.unsubscribe = session.onChange((view) => {
      if (view.auth === 'authenticated') void this.ensureStarted(entry);
      else void this.stopConnection(entry, 'idle');
    });
    if (session.view().auth === 'authenticated') void this.ensureStarted(entry);
  }

  async unwatch(environmentId: string): Promise<void> {
    const entry = this.watched.get(environmentId);
    if (!entry) return;
    this.watched.delete(environmentId);
    entry.unsubscribe();
    await this.stopConnection(entry, 'idle', false);
  }

  state(environmentId: string): { state: LiveState; message?: string } {
    const e = this.watched.get(environmentId);
    if (!e) return { state: 'idle' };
    return e.message !== undefined ? { state: e.state, message: e.message } : { state: e.state };
  }

  /** Resolves once the environment's connection is in `state` (tests, harness). */
  async whenState(environmentId: string, state: LiveState, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.state(environmentId).state !== state) {
      if (Date.now() > deadline) throw new Error(`hub of ${environmentId} did not reach ${state} (is ${this.state(environmentId).state})`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.watched.keys()].map((id) => this.unwatch(id)));
  }

  private setState(entry: Watched, state: LiveState, message?: string): void {
    entry.state = state;
    entry.message = message;
    this.options.onState?.(entry.session.environmentId, state, message);
  }

  private ensureStarted(entry: Watched): Promise<void> {
    if (entry.starting) return entry.starting;
    const c = entry.connection;
    if (c && c.state !== HubConnectionState.Disconnected) return Promise.resolve();
    entry.starting = this.start(entry).finally(() => {
      entry.starting = undefined;
    });
    return entry.starting;
  }

  private async start(entry: Watched): Promise<void> {
    const id = entry.session.environmentId;
    if (entry.retryTimer) clearTimeout(entry.retryTimer);
    entry.retryTimer = undefined;
    let url;
    try {
      url = entry.session.hubUrl();
    } catch (err) {
      // A hub address the console refuses: say so; trying again would not change it.
      this.setState(entry, 'error', err instanceof Error ? err.message : String(err));
      return;
    }
    if (!url) return;
    const delays = this.options.reconnectDelaysMs ?? [0, 2_000, 5_000, 10_000, 30_000];
    let transport;
    try {
      transport = await entry.session.hubTransport(url);
    } catch (err) {
      if (!this.stillWanted(entry)) return;
      this.setState(entry, 'error', err instanceof Error ? err.message : String(err));
      this.scheduleRetry(entry);
      return;
    }
    // Choosing the transport takes a while (proxy, certificates): the environment may have been
    // removed, or its session signed out, meanwhile. No connection for either.
    if (!this.stillWanted(entry)) return;
    // The hub client reads `WebSocket` at run time; its option types leave it out.
    const options: IHttpConnectionOptions = { ...transport, accessTokenFactory: async () => (await entry.session.freshToken()) ?? '' };
    const connection = new HubConnectionBuilder()
      .withUrl(url, options)
      .withAutomaticReconnect(delays)
      .configureLogging(this.logger(id))
      .build();
    entry.connection = connection;
    connection.on('SvcEvent', (event: SvcEvent) => {
      if (entry.connection === connection) this.options.onEvent(id, event);
    });
    connection.on(BULK_PROGRESS_TARGET, (progress: BulkOperation) => {
      if (entry.connection === connection) this.options.onBulkProgress?.(id, progress);
    });
    connection.onreconnecting((error) => {
      if (entry.connection !== connection) return;
      const failure = interpretHubFailure(error);
      if (failure.kind === 'token-expired') {
        this.setState(entry, 'reconnecting', failure.message);
        void this.renew(entry, failure.message).then((renewed) => {
          // Without a new token the reconnect cannot succeed: stop; the session shows the prompt.
          if (!renewed && entry.connection === connection) void this.stopConnection(entry, 'idle');
        });
        return;
      }
      this.setState(entry, 'reconnecting', error?.message);
    });
    connection.onreconnected(() => {
      if (entry.connection === connection) this.setState(entry, 'connected');
    });
    connection.onclose((error) => {
      if (entry.connection !== connection) return;
      entry.connection = undefined;
      if (entry.session.view().auth !== 'authenticated') {
        this.setState(entry, 'idle');
        return;
      }
      // A close is read like a failed start: an expired or refused token is renewed and the hub
      // started again (or the session asks for a login); anything else retries later.
      const failure = interpretHubFailure(error ?? 'The live connection closed');
      if (failure.kind === 'token-expired' || failure.kind === 'unauthorized') {
        this.setState(entry, 'reconnecting', failure.message);
        void this.renew(entry, failure.message).then((renewed) => {
          if (entry.connection !== undefined || !this.stillWanted(entry, false)) return;
          if (renewed) void this.ensureStarted(entry);
          else this.setState(entry, 'idle');
        });
        return;
      }
      this.setState(entry, 'error', failure.message);
      this.scheduleRetry(entry);
    });
    this.setState(entry, 'connecting');
    try {
      await connection.start();
      if (entry.connection === connection) this.setState(entry, 'connected');
      // Removed while connecting: this connection has no owner any more.
      else if (!this.watched.has(id) || this.watched.get(id) !== entry) await connection.stop().catch(() => undefined);
    } catch (err) {
      if (entry.connection !== connection) return;
      entry.connection = undefined;
      const failure = interpretHubFailure(err);
      if (failure.kind === 'unavailable') {
        this.setState(entry, 'unavailable', 'This environment has no live hub (standalone mode): the dashboard polls instead');
        return;
      }
      if (failure.kind === 'unauthorized' || failure.kind === 'token-expired') {
        const renewed = await this.renew(entry, 'The hub rejected the session token');
        if (renewed && this.stillWanted(entry)) return this.start(entry);
        // Not renewed: the session asks for a login (idle), or the renewal failed (error, retried).
        if (entry.state !== 'error' && this.stillWanted(entry, false)) this.setState(entry, 'idle');
        return;
      }
      this.setState(entry, 'error', failure.message);
      this.scheduleRetry(entry);
    }
  }

  /** Whether `entry` is still the environment's watch (and, by default, its session signed in). */
  private stillWanted(entry: Watched, signedIn = true): boolean {
    return this.watched.get(entry.session.environmentId) === entry && (!signedIn || entry.session.view().auth === 'authenticated');
  }

  /**
   * The hub refused the token: the session renews it (true) or asks for a login (false). A
   * renewal that fails outright (the host unreachable) is an error state, retried later.
   */
  private async renew(entry: Watched, reason: string): Promise<boolean> {
    try {
      return await entry.session.handleRejected(reason);
    } catch (err) {
      const message = `Renewing the session failed: ${err instanceof Error ? err.message : String(err)}`;
      this.options.log?.(entry.session.environmentId, 'error', message);
      if (this.stillWanted(entry, false)) {
        this.setState(entry, 'error', message);
        this.scheduleRetry(entry);
      }
      return false;
    }
  }

  private scheduleRetry(entry: Watched): void {
    if (!this.watched.has(entry.session.environmentId)) return;
    entry.retryTimer = setTimeout(() => {
      entry.retryTimer = undefined;
      if (entry.session.view().auth === 'authenticated') void this.ensureStarted(entry);
    }, this.options.retryAfterFailureMs ?? 30_000);
    entry.retryTimer.unref?.();
  }

  private async stopConnection(entry: Watched, state: LiveState, report = true): Promise<void> {
    if (entry.retryTimer) clearTimeout(entry.retryTimer);
    entry.retryTimer = undefined;
    const c = entry.connection;
    entry.connection = undefined;
    if (report) this.setState(entry, state);
    else entry.state = state;
    if (c) await c.stop().catch(() => undefined);
  }

  private logger(environmentId: string): ILogger {
    return {
      log: (level: LogLevel, message: string) => {
        if (level >= LogLevel.Error) this.options.log?.(environmentId, 'error', message);
        else if (level === LogLevel.Warning) this.options.log?.(environmentId, 'warn', message);
      },
    };
  }
}
