import { API_ROUTES } from '../../../server/src/contracts/apiRoutes.js';
import type { AxiosInstance } from 'axios';
import type {
  LoginResponse,
  MagicResponse,
  MonitoringConfig,
  ValidateResponse,
} from '../../../server/src/contracts/task.js';
import { ConsoleError } from '../ConsoleError.js';
import type { CredentialVault } from '../credentials/CredentialVault.js';
import type { Environment } from '../../shared/environment.js';
import type { EnvironmentNetwork, HubTransport, NetworkFor } from '../network/environmentNetwork.js';
import { nodeNetwork } from '../network/nodeNetwork.js';
import { createHttpClient, DEFAULT_API_BASE_PATH, httpError, networkError } from './httpClient.js';
import { LoopbackSignInError, signInWithSystemBrowser } from './loopbackSignIn.js';
import type { AuthState, SessionView } from '../../shared/session.js';

export interface EnvironmentSessionOptions {
  vault: CredentialVault;
  timeoutMs?: number;
  /** Re-login with a remembered password this long before expiry (default 60 s). */
  renewBeforeMs?: number;
  /** After an error (host unreachable), start again after this long (default 30 s). */
  retryAfterErrorMs?: number;
  now?: () => number;
  /** How the environment's host is reached (default: Node's network stack). */
  network?: NetworkFor;
}

type Listener = (view: SessionView) => void;

const MAX_TIMER_MS = 2_147_000_000;

/**
 * Authentication with one environment: `/config` for the hub path and
 * `managementEnabled`, `/auth/validate` of a stored token at start, password or magic-token
 * login, expiry tracking (a remembered password renews silently; otherwise the session asks
 * for a re-login), and rejection handling for the API proxy and the hub.
 */
export class EnvironmentSession {
  private environment: Environment;
  private network: EnvironmentNetwork;
  private http: AxiosInstance;
  private config: MonitoringConfig | undefined;
  private auth: AuthState = 'starting';
  private token: string | undefined;
  private expiresAt: string | undefined;
  private username: string | undefined;
  private canManage = false;
  private hasPassword = false;
  private message: string | undefined;
  private expiryTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private renewing: Promise<boolean> | undefined;
  private readonly listeners = new Set<Listener>();
  private stopped = false;
  /** Bumped when the address changes: an answer from the old address is never stored. */
  private addressEpoch = 0;
  private readonly now: () => number;

  constructor(environment: Environment, private readonly options: EnvironmentSessionOptions) {
    this.environment = environment;
    this.network = (options.network ?? nodeNetwork)(environment);
    this.http = this.createHttp();
    this.now = options.now ?? Date.now;
  }

  get environmentId(): string {
    return this.environment.id;
  }
  get baseUrl(): string {
    return this.environment.baseUrl;
  }
  get environmentName(): string {
    return this.environment.name;
  }
  /** The axios instance bound to this environment's API base. */
  get client(): AxiosInstance {
    return this.http;
  }

  onChange(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  view(): SessionView {
    return {
      environmentId: this.environment.id,
      auth: this.auth,
      canManage: this.canManage,
      managementEnabled: this.config?.managementEnabled ?? false,
      requireAuthentication: this.config?.requireAuthentication ?? true,
      hasRememberedPassword: this.hasPassword,
      ...(this.username !== undefined ? { username: this.username } : {}),
      ...(this.config ? { hubPath: this.config.signalRHubPath, eventDebounceMs: this.config.eventDebounceMs } : {}),
      ...(this.config?.singleSignOn ? { singleSignOn: { displayName: this.config.singleSignOn.displayName } } : {}),
      ...(this.config && typeof this.config.passwordLoginEnabled === 'boolean' ? { passwordLoginEnabled: this.config.passwordLoginEnabled } : {}),
      ...(this.expiresAt !== undefined ? { expiresAt: this.expiresAt } : {}),
      ...(this.message !== undefined ? { message: this.message } : {}),
    };
  }

  /**
   * Hub URL (absolute) once `/config` answered; under the environment's base path. The hub
   * is sent the bearer token, so an absolute address from `/config` is accepted only at the
   * environment's own origin (a ConsoleError names the other one).
   */
  hubUrl(): string | undefined {
    if (!this.config) return undefined;
    const url = joinUnderBase(this.environment.baseUrl, this.config.signalRHubPath);
    const own = new URL(this.environment.baseUrl).origin;
    let origin: string;
    try {
      origin = new URL(url).origin;
    } catch {
      origin = url;
    }
    if (origin !== own) {
      throw new ConsoleError('forbidden', `The service's /config names a live hub at ${origin}, not under this environment's own address: the console does not connect there`);
    }
    return url;
  }

  /** What the hub connection to `url` is built with: this environment's network and trust. */
  hubTransport(url: string): Promise<HubTransport> {
    return this.network.hub(url);
  }

  /** The environment changed (e.g. its URL or TLS settings were edited): start over. */
  async replaceEnvironment(environment: Environment): Promise<void> {
    const urlChanged = environment.baseUrl !== this.environment.baseUrl;
    const trustChanged = !sameTrust(environment, this.environment);
    this.environment = environment;
    if (trustChanged) {
      this.network = (this.options.network ?? nodeNetwork)(environment);
      this.http = this.createHttp();
    }
    if (urlChanged) {
      // Forget everything issued by the old host before the first request to the new one;
      // answers still on their way from it are dropped (see assertSameAddress).
      this.addressEpoch++;
      this.clearTimer();
      this.token = undefined;
      this.expiresAt = undefined;
      this.canManage = false;
      this.hasPassword = false;
      this.config = undefined;
      this.http = this.createHttp();
      this.set('starting');
      await this.start();
    } else if (trustChanged) {
      // Same host, other certificate rules: its tokens stay; check the host again with them.
      this.set('starting');
      await this.start();
    }
  }

  /** Reads `/config`, then validates a stored token (or logs in with a remembered password). */
  async start(): Promise<SessionView> {
    this.stopped = false;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    try {
      await this.loadConfig();
    } catch (err) {
      this.set('error', { message: err instanceof Error ? err.message : String(err) });
      return this.view();
    }
    if (!this.config!.requireAuthentication) {
      this.setAuthenticated({ canManage: false });
      return this.view();
    }
    const secret = await this.options.vault.get(this.environment.id);
    this.hasPassword = secret?.password !== undefined;
    this.username = secret?.username;
    if (secret?.token) {
      try {
        const validated = await this.validate(secret.token);
        if (validated) return this.view();
      } catch (err) {
        this.set('error', { message: (err as Error).message });
        return this.view();
      }
    }
    if (secret?.password && secret.username) {
      if (await this.renewWithPassword()) return this.view();
      return this.view();
    }
    this.set(secret?.token ? 'relogin-required' : 'logged-out', secret?.token ? { message: 'The saved session was rejected or has expired' } : {});
    return this.view();
  }

  /** Stops expiry tracking; resolves once a renewal in flight has settled. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.clearTimer();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    await this.renewing?.catch(() => undefined);
  }

  async loginWithPassword(username: string, password: string, remember: boolean): Promise<SessionView> {
    const epoch = this.addressEpoch;
    await this.ensureConfig();
    this.assertSameAddress(epoch);
    const response = await this.post<LoginResponse>(API_ROUTES['auth.login'].path, { username, password }, 'Login');
    this.assertSameAddress(epoch);
    return this.keepSession(response, remember ? password : undefined);
  }

  async loginWithMagicToken(magicToken: string): Promise<SessionView> {
    const epoch = this.addressEpoch;
    await this.ensureConfig();
    this.assertSameAddress(epoch);
    const response = await this.post<MagicResponse>(API_ROUTES['auth.magic'].path, { token: magicToken }, 'Magic-link login');
    this.assertSameAddress(epoch);
    // A magic-link session is read-only; a remembered password would not apply.
    await this.options.vault.update(this.environment.id, {
      token: response.token,
      expiresAt: response.expiresAt,
      username: response.username,
      canManage: false,
      password: undefined,
    });
    this.hasPassword = false;
    this.setAuthenticated({ token: response.token, expiresAt: response.expiresAt, username: response.username, canManage: false });
    return this.view();
  }

  /**
   * Single sign-on as a native app (RFC 8252, `signInWithSystemBrowser`): the system browser on
   * the environment's sign-in with a loopback redirect, PKCE and state; the one-time code is
   * redeemed through this environment's own client (its trust settings and proxy). The session
   * is kept like a password session without a password: the server hands the desktop no refresh
   * token, so it is renewed by signing in again.
   */
  async loginWithSingleSignOn(openExternal: (url: string) => Promise<void>, timeoutMs?: number): Promise<SessionView> {
    const epoch = this.addressEpoch;
    await this.ensureConfig();
    this.assertSameAddress(epoch);
    if (!this.config?.singleSignOn) throw new ConsoleError('not-found', `${this.environment.name} offers no single sign-on`);
    let response: LoginResponse;
    try {
      response = await signInWithSystemBrowser({
        baseUrl: this.environment.baseUrl,
        openExternal,
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        postJson: async (url, body) => {
          try {
            const r = await this.http.post(url, body);
            return { status: r.status, body: r.data as unknown };
          } catch (err) {
            throw networkError(err, `Cannot reach ${this.environment.baseUrl}`);
          }
        },
      });
    } catch (err) {
      if (err instanceof LoopbackSignInError) throw new ConsoleError('login-required', err.message);
      throw err;
    }
    this.assertSameAddress(epoch);
    return this.keepSession(response, undefined);
  }

  /** A signed-in session is kept in the vault (with the password only when the user asked to be remembered) and becomes this one's. */
  private async keepSession(response: LoginResponse, password: string | undefined): Promise<SessionView> {
    await this.options.vault.update(this.environment.id, {
      token: response.token,
      expiresAt: response.expiresAt,
      username: response.username,
      canManage: response.canManage,
      password,
    });
    this.hasPassword = password !== undefined;
    this.setAuthenticated({ token: response.token, expiresAt: response.expiresAt, username: response.username, canManage: response.canManage });
    return this.view();
  }

  async logout(): Promise<SessionView> {
    await this.options.vault.delete(this.environment.id);
    this.token = undefined;
    this.expiresAt = undefined;
    this.username = undefined;
    this.canManage = false;
    this.hasPassword = false;
    this.clearTimer();
    this.set(this.config && !this.config.requireAuthentication ? 'authenticated' : 'logged-out');
    return this.view();
  }

  /** The bearer for a request; undefined when none is needed or none is usable. */
  currentToken(): string | undefined {
    return this.auth === 'authenticated' ? this.token : undefined;
  }

  /** Waits for a renewal in flight, then returns the bearer (hub accessTokenFactory). */
  async freshToken(): Promise<string | undefined> {
    if (this.renewing) await this.renewing;
    return this.currentToken();
  }

  /**
   * The server rejected the token (API 401, hub Close "Token expired"). Renews with a
   * remembered password once, else asks for a re-login. Resolves true when a new token is
   * in place.
   */
  async handleRejected(reason: string): Promise<boolean> {
    if (this.config && !this.config.requireAuthentication) return false;
    if (this.renewing) return this.renewing;
    if (this.hasPassword && (await this.renewWithPassword())) return true;
    if (this.auth !== 'logged-out') this.set('relogin-required', { message: reason });
    return false;
  }

  private createHttp(): AxiosInstance {
    return createHttpClient(this.apiBaseUrl(), this.options.timeoutMs ?? 15_000, this.network.http);
  }

  private apiBaseUrl(): string {
    return joinUnderBase(this.environment.baseUrl, this.config?.apiBasePath ?? DEFAULT_API_BASE_PATH);
  }

  /** A login that started before the address changed must not store or use its answer. */
  private assertSameAddress(epoch: number): void {
    if (epoch !== this.addressEpoch) {
      throw new ConsoleError('conflict', `The address of this environment changed during the login: log in again at ${this.environment.baseUrl}`);
    }
  }

  private async ensureConfig(): Promise<void> {
    if (!this.config) await this.loadConfig();
  }

  private async loadConfig(): Promise<void> {
    const epoch = this.addressEpoch;
    let response;
    try {
      response = await this.http.get<MonitoringConfig>(API_ROUTES['config.get'].path);
    } catch (err) {
      throw networkError(err, `Cannot reach ${this.environment.baseUrl}`);
    }
    this.assertSameAddress(epoch);
    if (response.status !== 200) throw httpError(response, `${this.environment.baseUrl} /config`);
    const config = response.data;
    if (!config || typeof config !== 'object' || typeof config.signalRHubPath !== 'string' || typeof config.requireAuthentication !== 'boolean') {
      throw new ConsoleError('http', `${this.environment.baseUrl} does not look like a Svc Monitor service (unexpected /config answer)`);
    }
    const apiBase = typeof config.apiBasePath === 'string' && config.apiBasePath.startsWith('/') ? config.apiBasePath : DEFAULT_API_BASE_PATH;
    const rebase = apiBase !== (this.config?.apiBasePath ?? DEFAULT_API_BASE_PATH);
    this.config = { ...config, apiBasePath: apiBase };
    if (rebase) this.http = this.createHttp();
  }

  /** true: token valid and in place; false: rejected (401). Throws on a network error. */
  private async validate(token: string): Promise<boolean> {
    const epoch = this.addressEpoch;
    let response;
    try {
      response = await this.http.post<ValidateResponse>(API_ROUTES['auth.validate'].path, { token }, { headers: { Authorization: `Bearer ${token}` } });
    } catch (err) {
      throw networkError(err, `Cannot reach ${this.environment.baseUrl}`);
    }
    this.assertSameAddress(epoch);
    if (response.status === 401 || (response.status === 200 && response.data?.isValid === false)) return false;
    if (response.status !== 200) throw httpError(response, 'Token validation');
    const v = response.data;
    const secret = await this.options.vault.get(this.environment.id);
    const expiresAt = v.expiresAt ?? secret?.expiresAt;
    this.setAuthenticated({ token, username: v.username, canManage: v.canManage, ...(expiresAt ? { expiresAt } : {}) });
    return true;
  }

  private renewWithPassword(): Promise<boolean> {
    if (this.renewing) return this.renewing;
    this.renewing = (async () => {
      try {
        const secret = await this.options.vault.get(this.environment.id);
        if (!secret?.password || !secret.username) return false;
        await this.loginWithPassword(secret.username, secret.password, true);
        return true;
      } catch (err) {
        const e = err as ConsoleError;
        if (e.code === 'login-required') {
          // The remembered password no longer works: forget it.
          await this.options.vault.update(this.environment.id, { password: undefined, token: undefined });
          this.hasPassword = false;
          this.set('relogin-required', { message: 'The remembered password was refused' });
        } else {
          this.set('error', { message: e.message });
        }
        return false;
      } finally {
        this.renewing = undefined;
      }
    })();
    return this.renewing;
  }

  private async post<T>(path: string, body: unknown, what: string): Promise<T> {
    let response;
    try {
      response = await this.http.post<T>(path, body);
    } catch (err) {
      throw networkError(err, `Cannot reach ${this.environment.baseUrl}`);
    }
    if (response.status === 200) return response.data;
    if (response.status === 401) throw new ConsoleError('login-required', `${what} refused: invalid credentials`, 401);
    if (response.status === 429) {
      const e = httpError(response, what);
      throw new ConsoleError('http', `${what}: too many attempts${e.retryAfterSeconds ? `, try again in ${e.retryAfterSeconds} s` : ''}`, 429, e.problem, e.retryAfterSeconds);
    }
    if (response.status === 404 && path === API_ROUTES['auth.magic'].path) throw new ConsoleError('http', 'This environment has no magic link configured', 404);
    throw httpError(response, what);
  }

  private setAuthenticated(values: { token?: string; expiresAt?: string; username?: string; canManage: boolean }): void {
    this.token = values.token;
    this.expiresAt = values.expiresAt;
    if (values.username !== undefined) this.username = values.username;
    this.canManage = values.canManage;
    this.scheduleExpiry();
    this.set('authenticated');
  }

  private scheduleExpiry(): void {
    this.clearTimer();
    if (this.stopped || !this.expiresAt) return;
    const expiry = Date.parse(this.expiresAt);
    if (Number.isNaN(expiry)) return;
    // Renew ahead of expiry, but never before half of the remaining lifetime: a host with very
    // short tokens must not see a loop of logins.
    const remaining = expiry - this.now();
    const renewAt = this.hasPassword ? expiry - Math.min(this.options.renewBeforeMs ?? 60_000, remaining / 2) : expiry;
    const delay = Math.min(Math.max(0, renewAt - this.now()), MAX_TIMER_MS);
    this.expiryTimer = setTimeout(() => {
      this.expiryTimer = undefined;
      if (delay === MAX_TIMER_MS) return this.scheduleExpiry();
      void this.handleRejected('The session expired');
    }, delay);
    this.expiryTimer.unref?.();
  }

  private clearTimer(): void {
    if (this.expiryTimer) clearTimeout(this.expiryTimer);
    this.expiryTimer = undefined;
  }

  private set(auth: AuthState, extra: { message?: string } = {}): void {
    this.auth = auth;
    if (auth === 'error' && !this.stopped && !this.retryTimer) {
      // A host that is down now may be back later: the console stays open all day.
      this.retryTimer = setTimeout(() => {
        this.retryTimer = undefined;
        if (!this.stopped && this.auth === 'error') void this.start();
      }, this.options.retryAfterErrorMs ?? 30_000);
      this.retryTimer.unref?.();
    }
    this.message = extra.message;
    if (auth !== 'authenticated') {
      this.token = auth === 'relogin-required' || auth === 'logged-out' ? undefined : this.token;
      if (auth !== 'error') this.clearTimer();
    }
    const view = this.view();
    for (const l of this.listeners) l(view);
  }
}

/** Whether two versions of an environment reach their host with the same certificate rules. */
export function sameTrust(a: Environment, b: Environment): boolean {
  return (a.caCertificatePath ?? '') === (b.caCertificatePath ?? '') && (a.allowSelfSigned === true) === (b.allowSelfSigned === true) && a.isProduction === b.isProduction;
}

/** `https://h/app` + `/svc-monitoring/hub` → `https://h/app/svc-monitoring/hub`; an absolute URL stays. */
export function joinUnderBase(baseUrl: string, path: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path)) return path;
  return `${baseUrl.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}
