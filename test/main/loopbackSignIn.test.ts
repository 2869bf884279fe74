import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LoopbackSignInError, signInWithSystemBrowser } from '../../src/main/session/loopbackSignIn.js';
import { postJson } from '../fixtures/server/servedMonitoring.js';
import { browserSigningInAs } from '../fixtures/server/ssoBrowser.js';
import { startSsoHost, type SsoHost } from '../fixtures/server/ssoHost.js';

describe('desktop single sign-on: the loopback flow (RFC 8252) against a real provider', () => {
  let host: SsoHost;
  beforeAll(async () => {
    host = await startSsoHost();
  });
  afterAll(() => host?.close());

  it('opens the system browser on the server with a loopback redirect, state and PKCE, and gets the session', async () => {
    const seen: string[] = [];
    const session = await signInWithSystemBrowser({ baseUrl: host.baseUrl, openExternal: browserSigningInAs(host, 'alice', seen) });
    expect(session).toMatchObject({ username: 'alice@example.com', canManage: true });
    const validated = await postJson(`${host.api}/auth/validate`, { token: session.token });
    expect(validated.body).toMatchObject({ isValid: true, username: 'alice@example.com', canManage: true });

    const opened = new URL(seen[0]!);
    expect(opened.pathname).toBe('/svc-monitoring/auth/oidc/login');
    expect(opened.searchParams.get('desktop_redirect')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(opened.searchParams.get('desktop_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const loopback = new URL(seen[1]!);
    expect(loopback.searchParams.get('state')).toBe(opened.searchParams.get('desktop_state'));
    // The session token never appears in a URL: the browser only saw a one-time code…
    expect(seen.join(' ')).not.toContain(session.token);
    // …which is useless without the console's PKCE verifier.
    const stolen = await postJson(`${host.baseUrl}/svc-monitoring/auth/oidc/desktop-token`, { code: loopback.searchParams.get('code'), codeVerifier: 'x'.repeat(43) });
    expect(stolen.status).toBe(401);
  });

  it('a refusal at the server reaches the console with its code and message', async () => {
    const attempt = signInWithSystemBrowser({ baseUrl: host.baseUrl, openExternal: browserSigningInAs(host, 'mallory', []) });
    await expect(attempt).rejects.toBeInstanceOf(LoopbackSignInError);
    await expect(attempt).rejects.toMatchObject({ code: 'not_allowed', message: 'The e-mail domain elsewhere.test is not allowed to sign in to this monitoring.' });
  });

  it('an answer with another state at the loopback address is refused, and the console keeps waiting (then times out)', async () => {
    const attempt = signInWithSystemBrowser({
      baseUrl: host.baseUrl,
      timeoutMs: 1_500,
      openExternal: async (url) => {
        const redirect = new URL(url).searchParams.get('desktop_redirect')!;
        const forged = await fetch(`${redirect}?code=forged&state=not-the-console-state`);
        expect(forged.status).toBe(400);
      },
    });
    await expect(attempt).rejects.toMatchObject({ code: 'timeout' });
  });

  it('the server accepts only loopback IP literals with a port as the desktop redirect', async () => {
    const challenge = 'A'.repeat(43);
    for (const redirect of ['http://evil.example.com:8080/cb', 'http://localhost:8080/cb', 'https://127.0.0.1:8080/cb', 'http://127.0.0.1/cb']) {
      const res = await fetch(
        `${host.baseUrl}/svc-monitoring/auth/oidc/login?${new URLSearchParams({ desktop_redirect: redirect, desktop_state: 's'.repeat(32), desktop_challenge: challenge })}`,
        { redirect: 'manual' },
      );
      expect(res.status, redirect).toBe(400);
      expect((await res.json()).detail).toMatch(/loopback address/);
    }
  });
});
