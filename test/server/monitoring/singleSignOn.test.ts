// @backends sqlite — reads no stored data: the sign-in flows with an OpenID provider, the same over any store.
import { HttpTransportType, HubConnectionBuilder, LogLevel } from '@microsoft/signalr';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveOptions } from '../../../server/src/monitoring/options.js';
import type { SignInEvent } from '../../../server/src/monitoring/auth/oidc/oidcOptions.js';
import { OptionError } from '../../../server/src/options/OptionError.js';
import { getJson, postJson } from '../../fixtures/server/servedMonitoring.js';
import { startTestProvider } from '../../fixtures/server/oidcProvider.js';
import { CALLBACK_PATH, CookieJar, signInAtProvider, ssoOptions, startSsoHost, visit, type SsoHost } from '../../fixtures/server/ssoHost.js';

const QUIET = { logger: { info: () => undefined, warn: () => undefined } };
const LOGIN_PATH = '/svc-monitoring/auth/oidc/login';

/** Starts a sign-in at the monitoring: the provider URL it redirects to, and the browser's cookies. */
async function startSignIn(host: SsoHost, query = ''): Promise<{ jar: CookieJar; authorizationUrl: URL }> {
  const jar = new CookieJar();
  const res = await visit(`${host.baseUrl}${LOGIN_PATH}${query}`, jar);
  expect(res.status).toBe(303);
  return { jar, authorizationUrl: new URL(res.headers.get('location')!) };
}

/** A whole sign-in as `login`; answers the callback's answer (not followed). */
async function signIn(host: SsoHost, login: string, tamper: (auth: URL, callback: URL) => void = () => undefined, accept = 'application/json'): Promise<Response> {
  const { jar, authorizationUrl } = await startSignIn(host);
  const callbackUrl = new URL(await signInAtProvider(authorizationUrl.href, login, `${host.baseUrl}${CALLBACK_PATH}`));
  tamper(authorizationUrl, callbackUrl);
  return visit(callbackUrl.href, jar, { headers: { accept } });
}

function sessionOf(res: Response): string {
  expect(res.status).toBe(303);
  const location = res.headers.get('location')!;
  expect(location).toMatch(/^\/svc-monitoring\/magic#session=/);
  return decodeURIComponent(location.slice(location.indexOf('=') + 1));
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((r) => probe.close(() => r()));
  return port;
}

describe('single sign-on with OpenID Connect against a real provider (oidc-provider)', () => {
  let host: SsoHost;
  const signIns: SignInEvent[] = [];
  beforeAll(async () => {
    host = await startSsoHost({ monitoring: { onSignIn: (event) => signIns.push(event) } });
  });
  afterAll(() => host?.close());

  it('/config offers the provider button and keeps the password login', async () => {
    const config = await getJson(`${host.api}/config`);
    expect(config.body).toMatchObject({ passwordLoginEnabled: true, singleSignOn: { displayName: 'Test IdP', loginPath: LOGIN_PATH } });
  });

  it('login redirects to the provider with state, nonce and an S256 PKCE challenge, kept in a signed httpOnly cookie', async () => {
    const res = await fetch(`${host.baseUrl}${LOGIN_PATH}`, { redirect: 'manual' });
    expect(res.status).toBe(303);
    const to = new URL(res.headers.get('location')!);
    expect(to.origin).toBe(host.provider.issuer);
    expect(to.searchParams.get('code_challenge_method')).toBe('S256');
    expect(to.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(to.searchParams.get('state')).toBeTruthy();
    expect(to.searchParams.get('nonce')).toBeTruthy();
    expect(to.searchParams.get('scope')).toBe('openid profile email');
    expect(to.searchParams.get('redirect_uri')).toBe(`${host.baseUrl}${CALLBACK_PATH}`);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('svc_oidc_flow='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\/svc-monitoring\/auth\/oidc/);
  });

  it('an operator (group claim) gets the same session JWT as the password login, with the operate role, ending no later than the ID token', async () => {
    const before = Date.now();
    const token = sessionOf(await signIn(host, 'alice'));
    const after = Date.now();
    const validated = await postJson(`${host.api}/auth/validate`, { token });
    expect(validated.status).toBe(200);
    expect(validated.body).toMatchObject({ isValid: true, username: 'alice@example.com', canManage: true });
    // The provider's ID tokens live an hour (minted during the sign-in): the session ends with
    // it, not after the 8-hour default.
    const expiresAt = Date.parse(validated.body.expiresAt);
    expect(expiresAt).toBeLessThanOrEqual(after + 3600_000);
    expect(expiresAt).toBeGreaterThan(before + 3500_000);
    // The operate role acts: a management call passes the gate (and answers for an unknown task).
    const retry = await postJson(`${host.api}/management/tasks/00000000-0000-7000-8000-000000000000/retry`, {}, token);
    expect(retry.status).toBe(404);
    expect(retry.body.status).toBe('NotFound');
  });

  it('a reader (no operator group) gets the read role: management is refused', async () => {
    const token = sessionOf(await signIn(host, 'bob'));
    expect(signIns.at(-1)).toMatchObject({ method: 'oidc', outcome: 'succeeded', username: 'bob@example.com', role: 'read' });
    expect((await postJson(`${host.api}/auth/validate`, { token })).body).toMatchObject({ username: 'bob@example.com', canManage: false });
    const retry = await postJson(`${host.api}/management/tasks/00000000-0000-7000-8000-000000000000/retry`, {}, token);
    expect(retry.status).toBe(403);
  });

  it('a user outside the allowed e-mail domains is refused with a clear problem (and a browser is sent to the login page)', async () => {
    const refused = await signIn(host, 'mallory');
    expect(refused.status).toBe(403);
    expect((await refused.json()).detail).toBe('The e-mail domain elsewhere.test is not allowed to sign in to this monitoring.');
    expect(signIns.at(-1)).toMatchObject({ method: 'oidc', outcome: 'refused', reason: 'not_allowed', username: 'mallory@elsewhere.test', clientAddress: '127.0.0.1' });
    const browser = await signIn(host, 'mallory', undefined, 'text/html');
    expect(browser.status).toBe(303);
    expect(browser.headers.get('location')).toBe('/svc-monitoring/login?sso_error=not_allowed');
  });

  it('a tampered state is refused, and so is a callback without the flow cookie or with a forged one', async () => {
    const tampered = await signIn(host, 'alice', (_auth, callback) => callback.searchParams.set('state', `${callback.searchParams.get('state')}x`));
    expect(tampered.status).toBe(400);
    expect((await tampered.json()).detail).toMatch(/state mismatch/);

    const { authorizationUrl } = await startSignIn(host);
    const callback = await signInAtProvider(authorizationUrl.href, 'alice', `${host.baseUrl}${CALLBACK_PATH}`);
    const noCookie = await fetch(callback, { redirect: 'manual' });
    expect(noCookie.status).toBe(400);
    expect((await noCookie.json()).detail).toMatch(/not started in this browser/);
    const forged = await fetch(callback, { redirect: 'manual', headers: { cookie: 'svc_oidc_flow=eyJhbGciOiJub25lIn0.e30.' } });
    expect(forged.status).toBe(400);
  });

  it('an ID token minted for another nonce is refused', async () => {
    const { jar, authorizationUrl } = await startSignIn(host);
    // The provider is asked with a nonce other than the one this browser's flow holds.
    authorizationUrl.searchParams.set('nonce', 'a-nonce-of-another-sign-in');
    const callback = await signInAtProvider(authorizationUrl.href, 'alice', `${host.baseUrl}${CALLBACK_PATH}`);
    const res = await visit(callback, jar, { headers: { accept: 'application/json' } });
    expect(res.status).toBe(400);
    expect((await res.json()).detail).toMatch(/nonce mismatch/);
  });

  it('a code can be redeemed once: replaying the callback is refused', async () => {
    const { jar, authorizationUrl } = await startSignIn(host);
    const callback = await signInAtProvider(authorizationUrl.href, 'bob', `${host.baseUrl}${CALLBACK_PATH}`);
    const cookie = jar.header();
    sessionOf(await visit(callback, jar));
    const replay = await fetch(callback, { redirect: 'manual', headers: { cookie, accept: 'application/json' } });
    expect(replay.status).toBe(502);
    expect((await replay.json()).detail).toMatch(/identity provider's answer was refused/);
  });
});

describe('single sign-on: an issuer that is down, password login off, the hub at the session end', () => {
  it('an unreachable issuer: the button answers 503 with a detail (a browser goes back to login), the password login works, discovery is retried later', async () => {
    const port = await freePort();
    let shift = 0;
    const host = await startSsoHost({ issuer: `http://127.0.0.1:${port}`, monitoring: { now: () => Date.now() + shift } });
    try {
      const down = await fetch(`${host.baseUrl}${LOGIN_PATH}`, { redirect: 'manual' });
      expect(down.status).toBe(503);
      expect((await down.json()).detail).toMatch(new RegExp(`The identity provider http://127\\.0\\.0\\.1:${port}/ cannot be reached.*Sign in with a password`));
      const browser = await fetch(`${host.baseUrl}${LOGIN_PATH}`, { redirect: 'manual', headers: { accept: 'text/html' } });
      expect(browser.headers.get('location')).toBe('/svc-monitoring/login?sso_error=issuer_unavailable');
      expect((await postJson(`${host.api}/auth/login`, { username: 'admin', password: 'admin' })).status).toBe(200);

      // The provider comes up at that address: after the retry pause the next sign-in discovers it.
      const provider = await startTestProvider({ redirectUris: [`${host.baseUrl}${CALLBACK_PATH}`], port });
      try {
        expect((await fetch(`${host.baseUrl}${LOGIN_PATH}`, { redirect: 'manual' })).status).toBe(503);
        shift = 6_000;
        const up = await fetch(`${host.baseUrl}${LOGIN_PATH}`, { redirect: 'manual' });
        expect(up.status).toBe(303);
        expect(up.headers.get('location')).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/auth\\?`));
      } finally {
        await provider.close();
      }
    } finally {
      await host.close();
    }
  });

  it('enablePasswordLogin: false turns POST /auth/login off with a clear problem and tells the dashboard', async () => {
    const host = await startSsoHost({ monitoring: { enablePasswordLogin: false } });
    try {
      const login = await postJson(`${host.api}/auth/login`, { username: 'admin', password: 'admin' });
      expect(login.status).toBe(404);
      expect(login.body.detail).toBe('The password login is turned off on this host (enablePasswordLogin): sign in with single sign-on.');
      expect((await getJson(`${host.api}/config`)).body.passwordLoginEnabled).toBe(false);
    } finally {
      await host.close();
    }
  });

  it('the hub accepts a single sign-on session and closes the connection when it expires with the ID token', async () => {
    const host = await startSsoHost({ idTokenTtl: 4 });
    try {
      const token = sessionOf(await signIn(host, 'bob'));
      const expiresAt = Date.parse((await postJson(`${host.api}/auth/validate`, { token })).body.expiresAt);
      expect(expiresAt - Date.now()).toBeLessThanOrEqual(4_000);
      const connection = new HubConnectionBuilder()
        .withUrl(`${host.baseUrl}/svc-monitoring/hub`, { accessTokenFactory: () => token, transport: HttpTransportType.WebSockets, skipNegotiation: true })
        .configureLogging(LogLevel.None)
        .build();
      const closed = new Promise<number>((resolve) => connection.onclose(() => resolve(Date.now())));
      await connection.start();
      const closedAt = await closed;
      expect(closedAt).toBeGreaterThanOrEqual(expiresAt - 50);
      expect(closedAt - expiresAt).toBeLessThan(2_000);
    } finally {
      await host.close();
    }
  });

  it('refuses bad options at startup, naming the option', () => {
    const fail = (options: Record<string, unknown>) => {
      try {
        resolveOptions({ ...QUIET, ...options });
      } catch (error) {
        if (error instanceof OptionError) return error.message;
        throw error;
      }
      throw new Error('accepted');
    };
    expect(fail({ oidcIssuer: 'https://login.example.com' })).toMatch(/oidcClientId.*required/);
    expect(fail({ oidcClientId: 'x' })).toMatch(/oidcClientId.*needs oidcIssuer/);
    expect(fail({ oidcIssuer: 'http://login.example.com', oidcClientId: 'x' })).toMatch(/oidcIssuer.*https/);
    expect(fail({ ...ssoOptions('https://login.example.com'), oidcOperateRole: { claim: 'groups' } })).toMatch(/oidcOperateRole\.value.*required/);
    expect(fail({ ...ssoOptions('https://login.example.com'), oidcScopes: 'profile email' })).toMatch(/oidcScopes.*openid/);
    expect(fail({ ...ssoOptions('https://login.example.com'), oidcAllowedEmailDomains: ['not a domain'] })).toMatch(/oidcAllowedEmailDomains/);
    expect(fail({ enablePasswordLogin: false })).toMatch(/enablePasswordLogin.*oidcIssuer/);
  });
});
