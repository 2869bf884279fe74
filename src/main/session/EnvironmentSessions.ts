import { ConsoleError } from '../ConsoleError.js';
import { withinTime } from '../lifecycle/withinTime.js';
import type { CredentialVault } from '../credentials/CredentialVault.js';
import type { EnvironmentStore } from '../environments/EnvironmentStore.js';
import type { NetworkFor } from '../network/environmentNetwork.js';
import type { HubManager } from '../watch/HubManager.js';
import type { Environment } from '../../shared/environment.js';
import { EnvironmentSession, type EnvironmentSessionOptions } from './EnvironmentSession.js';

export interface EnvironmentSessionsOptions {
  store: Pick<EnvironmentStore, 'list'>;
  vault: CredentialVault;
  hub: Pick<HubManager, 'watch' | 'unwatch'>;
  session?: Omit<EnvironmentSessionOptions, 'vault' | 'network'>;
  network?: NetworkFor;
  /** A new session's view changed. */
  onSessionChange: (environmentId: string) => void;
  /** An environment was removed: its session, hub and credentials are gone; what else it had goes too. */
  onRemoved: (environmentId: string) => void;
  /** An environment moved to another address (its credentials are gone). */
  onMoved: (environmentId: string) => void;
  /** A sync finished: every session matches the store. */
  onSynced: (environments: readonly Environment[]) => void;
  log?: (level: 'warn' | 'error', message: string) => void;
  /** A removed or moved environment's session and live connection get this long to stop (default 5 s). */
  stopLimitMs?: number;
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** One session (and its hub connection) per environment in the store, brought in line with it one sync at a time. */
export class EnvironmentSessions {
  private readonly sessions = new Map<string, EnvironmentSession>();
  private syncing: Promise<void> = Promise.resolve();

  constructor(private readonly options: EnvironmentSessionsOptions) {}

  get(environmentId: string): EnvironmentSession | undefined {
    return this.sessions.get(environmentId);
  }

  /** The environment's session; a `not-found` ConsoleError when there is no such environment. */
  require(environmentId: string): EnvironmentSession {
    const s = this.sessions.get(environmentId);
    if (!s) throw new ConsoleError('not-found', `Unknown environment "${environmentId}"`);
    return s;
  }

  /** The sync under way (settles, never rejects). */
  settled(): Promise<void> {
    return this.syncing;
  }

  /** Stops every session and forgets them (quit). */
  async stopAll(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((s) => s.stop()));
    this.sessions.clear();
  }

  /** Brings the sessions in line with the store, one sync at a time; a failed sync is logged and rejects its caller. */
  sync(): Promise<void> {
    const run = this.syncing.then(() => this.doSync());
    this.syncing = run.catch((err: unknown) => this.options.log?.('error', `updating the sessions failed: ${messageOf(err)}`));
    return run;
  }

  /**
   * A host that accepts and never answers must not hold the sync (and every change queued behind
   * it): the live connection is stopped within the limit, then dropped (it was already forgotten).
   */
  private async stopWithin(name: string, stopping: Promise<unknown>): Promise<void> {
    const limitMs = this.options.stopLimitMs ?? 5_000;
    const { done } = await withinTime(stopping, limitMs);
    if (!done) this.options.log?.('warn', `${name}: stopping its live connection did not finish within ${limitMs} ms; it was dropped`);
  }

  private async doSync(): Promise<void> {
    const { store, hub, vault } = this.options;
    const envs = store.list();
    const ids = new Set(envs.map((e) => e.id));
    for (const [id, session] of this.sessions) {
      if (ids.has(id)) continue;
      // The session is forgotten last: a clean-up that fails (a locked keychain) is tried again by the next sync.
      await this.stopWithin(session.environmentName, Promise.all([session.stop(), hub.unwatch(id)]));
      await vault.delete(id);
      this.options.onRemoved(id);
      this.sessions.delete(id);
    }
    const started: Promise<unknown>[] = [];
    for (const env of envs) {
      const existing = this.sessions.get(env.id);
      if (existing && existing.baseUrl !== env.baseUrl) {
        // A token or password belongs to the host it was issued by: never send it to a new address.
        await this.stopWithin(env.name, hub.unwatch(env.id));
        await vault.delete(env.id);
        this.options.onMoved(env.id);
        await existing.replaceEnvironment(env);
        hub.watch(existing);
        continue;
      }
      if (existing) {
        // Same address, other settings: the session checks the host again in the background.
        void existing.replaceEnvironment(env).catch((err: unknown) => this.options.log?.('error', `${env.name}: applying the changed settings failed: ${messageOf(err)}`));
        continue;
      }
      const session = new EnvironmentSession(env, { ...this.options.session, vault, ...(this.options.network ? { network: this.options.network } : {}) });
      this.sessions.set(env.id, session);
      session.onChange(() => this.options.onSessionChange(env.id));
      hub.watch(session);
      started.push(session.start());
    }
    await Promise.all(started);
    this.options.onSynced(envs);
  }
}
