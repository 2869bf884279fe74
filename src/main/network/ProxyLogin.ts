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

/**
 * Answers a proxy's request for credentials (HTTP 407): the ones kept in the keychain for that
 * proxy first; when they are refused (the proxy asks again) or there are none, a prompt naming
 * the proxy. Requests to the same proxy while a prompt is open share it.
 */
export class ProxyLogin {
  private readonly asking = new Map<string, Promise<Credentials>>();
  /** Proxies whose kept credentials were just tried: a second request means they were refused. */
  private readonly tried = new Set<string>();
  private sequence = 0;

  constructor(private readonly options: ProxyLoginOptions) {}

  async credentials(info: ProxyAuthInfo): Promise<Credentials> {
    const proxy = `${info.host}:${info.port}`;
    const account = `proxy:${proxy}`;
    const running = this.asking.get(account);
    if (running) return running;
    const run = (async (): Promise<Credentials> => {
      const retry = this.tried.has(account);
      if (!retry) {
        const kept = await this.options.vault.get(account).catch(() => undefined);
        if (kept?.username && kept.password !== undefined) {
          this.tried.add(account);
          setTimeout(() => this.tried.delete(account), 60_000).unref?.();
          return { username: kept.username, password: kept.password };
        }
      } else {
        this.tried.delete(account);
        this.options.log?.(`proxy ${proxy} refused the kept credentials: asking again`);
        await this.options.vault.delete(account).catch(() => undefined);
      }
      const answer = await this.options.ask({ id: `p${++this.sequence}`, proxy, scheme: info.scheme, retry, ...(info.realm ? { realm: info.realm } : {}) });
      if (!answer) return null;
      if (answer.remember) await this.options.vault.update(account, { username: answer.username, password: answer.password });
      this.tried.add(account);
      setTimeout(() => this.tried.delete(account), 60_000).unref?.();
      return { username: answer.username, password: answer.password };
    })().finally(() => this.asking.delete(account));
    this.asking.set(account, run);
    return run;
  }
}
