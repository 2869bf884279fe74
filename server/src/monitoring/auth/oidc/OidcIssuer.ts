import * as client from 'openid-client';
import type { ResolvedOidcOptions } from './oidcOptions.js';

/** How long a failed discovery is remembered before the next sign-in tries again. */
const RETRY_AFTER_MS = 5_000;
/** How long one discovery (or any later request to the provider) may take. */
const REQUEST_TIMEOUT_S = 5;

/** The provider could not be reached or answered nonsense: the sign-in answers 503. */
export class IssuerUnavailableError extends Error {
  constructor(readonly issuer: string, cause: unknown) {
    super(`The identity provider ${issuer} cannot be reached: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'IssuerUnavailableError';
  }
}

/**
 * The provider's configuration, discovered on first use rather than at startup (a provider that
 * is down must not stop the monitoring, nor the password login): a failure is remembered for a
 * few seconds, then the next sign-in discovers again. Plain http is allowed only for loopback
 * issuers (the option resolver enforces that).
 */
export class OidcIssuer {
  private config: client.Configuration | null = null;
  private pending: Promise<client.Configuration> | null = null;
  private failure: { error: IssuerUnavailableError; atMs: number } | null = null;

  constructor(
    private readonly options: ResolvedOidcOptions,
    private readonly now: () => number,
  ) {}

  async configuration(): Promise<client.Configuration> {
    if (this.config) return this.config;
    if (this.failure && this.now() - this.failure.atMs < RETRY_AFTER_MS) throw this.failure.error;
    this.pending ??= this.discover().finally(() => (this.pending = null));
    return this.pending;
  }

  private async discover(): Promise<client.Configuration> {
    const o = this.options;
    const auth = o.clientSecret === null ? client.None() : client.ClientSecretBasic(o.clientSecret);
    try {
      const config = await client.discovery(o.issuer, o.clientId, o.clientSecret ?? undefined, auth, {
        timeout: REQUEST_TIMEOUT_S,
        execute: o.issuer.protocol === 'http:' ? [client.allowInsecureRequests] : [],
      });
      this.config = config;
      this.failure = null;
      return config;
    } catch (error) {
      const failure = new IssuerUnavailableError(o.issuer.href, error);
      this.failure = { error: failure, atMs: this.now() };
      throw failure;
    }
  }
}
