import type { ProxyLoginAnswer, ProxyLoginRequest } from '../../shared/proxyLogin.js';

/** What Electron's `login` event says about a proxy that asked for credentials. */
export interface ProxyAuthInfo {
  host: string;
  port: number;
  realm?: string;
  scheme: string;
}

/** The vault calls proxy credentials need (one record per proxy). */
export interface ProxyCredentialStore {
  get(account: string): Promise<{ username?: string; password?: string } | undefined>;
  update(account: string, patch: { username?: string; password?: string }): Promise<unknown>;
  delete(account: string): Promise<void>;
}

export interface ProxyLoginOptions {
  vault: ProxyCredentialStore;
  /** Shows the prompt naming the proxy; null when the user cancelled (or nobody can answer). */
  ask(request: ProxyLoginRequest): Promise<ProxyLoginAnswer | null>;
  log?: (message: string) => void;
}

type Credentials = { username: string; password: string } | null;

/** Which request asks: the session whose credential cache it uses, and whether it was refused before. */
export interface ProxyLoginAttempt {
  /**
   * The session (credential cache) of the request: each custom-trust environment has its own, so
   * its first 407 is a first attempt even when another session was answered a moment ago.
   */
  scope?: string;
  /**
   * Known to the caller: the same request asks again, so the credentials it was given were
   * refused. Left out (the app's `login` event, the updater), a second request from the same
   * scope within a minute of the kept credentials counts as a refusal.
   */
  refused?: boolean;
}

/**
 * Answers a proxy's request for credentials (HTTP 407): the ones kept in the keychain for that
 * proxy first; when they are refused (the proxy asks again) or there are none, a prompt naming
 * the proxy. Requests to the same proxy while a prompt is open share it. Kept credentials are
 * forgotten only when refused, never because another session asked for them too.
 */
export class ProxyLogin {
  private readonly asking = new Map<string, Promise<Credentials>>();
  /** Proxies whose kept credentials were just tried: a second request means they were refused. */
  private readonly tried = new Set<string>();
  private sequence = 0;

  constructor(private readonly options: ProxyLoginOptions) {}

  async credentials(info: ProxyAuthInfo, attempt: ProxyLoginAttempt = {}): Promise<Credentials> {
    const proxy = `${info.host}:${info.port}`;
    const account = `proxy:${proxy}`;
    const tried = `${attempt.scope ?? 'default'}|${account}`;
    const retry = attempt.refused ?? this.tried.has(tried);
    // A refusal waits for its own prompt; first attempts share whatever is under way.
    const key = `${account}|${retry}`;
    const running = this.asking.get(key);
    if (running) return running;
    const remember = () => {
      this.tried.add(tried);
      setTimeout(() => this.tried.delete(tried), 60_000).unref?.();
    };
    const run = (async (): Promise<Credentials> => {
      if (!retry) {
        const kept = await this.options.vault.get(account).catch(() => undefined);
        if (kept?.username && kept.password !== undefined) {
          remember();
          return { username: kept.username, password: kept.password };
        }
      } else {
        this.tried.delete(tried);
        this.options.log?.(`proxy ${proxy} refused the credentials: asking again`);
        await this.options.vault.delete(account).catch(() => undefined);
      }
      const answer = await this.options.ask({ id: `p${++this.sequence}`, proxy, scheme: info.scheme, retry, ...(info.realm ? { realm: info.realm } : {}) });
      if (!answer) return null;
      if (answer.remember) await this.options.vault.update(account, { username: answer.username, password: answer.password });
      remember();
      return { username: answer.username, password: answer.password };
    })().finally(() => this.asking.delete(key));
    this.asking.set(key, run);
    return run;
  }
}
