import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ENCRYPTED_SECRETS_FILE } from '../../src/main/credentials/SafeStorageFileBackend.js';
import { createIpcDispatcher } from '../../src/main/ipc/ipcDispatcher.js';
import type { IpcResult } from '../../src/shared/ipcContract.js';
import type { SessionView } from '../../src/shared/session.js';
import { aesSafeStorage } from '../fixtures/main/aesSafeStorage.js';
import { createConsole, type RecordingConsole } from '../fixtures/main/consoleSuite.js';
import { createTempDir } from '../fixtures/main/tempDir.js';
import { startFullHost } from '../fixtures/main/fullHost.js';
import { browserSigningInAs } from '../fixtures/server/ssoBrowser.js';
import { startSsoHost, type SsoHost } from '../fixtures/server/ssoHost.js';

/**
 * The desktop's single sign-on end to end in Node: the real main services and IPC table, a real
 * monitoring host with a real OpenID provider (oidc-provider), and the system browser played by
 * an HTTP client that follows the provider's redirects and posts its login form.
 */
describe('desktop single sign-on (main): LoginPanel → IPC → system browser → loopback → session', () => {
  let host: SsoHost;
  let dir: string;
  let cleanup: () => Promise<void>;
  let c: RecordingConsole | undefined;
  beforeAll(async () => {
    host = await startSsoHost();
  });
  afterAll(() => host?.close());
  beforeEach(async () => ({ dir, cleanup } = await createTempDir()));
  afterEach(async () => {
    await c?.services.dispose();
    c = undefined;
    await cleanup();
  });

  // One machine's safeStorage key across the restarts of a test.
  let safeStorage = aesSafeStorage('gnome_libsecret');
  beforeEach(() => void (safeStorage = aesSafeStorage('gnome_libsecret')));

  async function desktop(login: string) {
    c = await createConsole(dir, { safeStorage });
    const env = await c.services.addEnvironment({ name: 'Corp', baseUrl: host.baseUrl, colour: '#2563eb', isProduction: false });
    const opened: string[] = [];
    const dispatch = createIpcDispatcher({ services: c.services, openExternal: browserSigningInAs(host, login, opened) });
    return { services: c.services, env, opened, dispatch };
  }

  it('shows "Sign in with …" from the environment\'s /config, signs in through the system browser and keeps the session like a password one', async () => {
    const { services, env, opened, dispatch } = await desktop('alice');
    const before = services.requireSession(env.id).view();
    expect(before).toMatchObject({ auth: 'logged-out', singleSignOn: { displayName: 'Test IdP' }, passwordLoginEnabled: true });

    const result = (await dispatch('session.loginSingleSignOn', [env.id])) as IpcResult<SessionView>;
    expect(result).toMatchObject({ ok: true, value: { auth: 'authenticated', username: 'alice@example.com', canManage: true } });
    // The system browser was opened on the environment's own sign-in, with a loopback redirect.
    expect(new URL(opened[0]!).origin).toBe(host.baseUrl);
    expect(new URL(opened[0]!).searchParams.get('desktop_redirect')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    // The session works for the API, through main.
    const page = await services.callApi(env.id, 'tasks.list', {});
    expect(page.totalCount).toBeGreaterThanOrEqual(0);
    // Stored encrypted like a password session (no password, no token in clear).
    const stored = await readFile(join(dir, ENCRYPTED_SECRETS_FILE), 'utf8');
    expect(stored).not.toContain('alice@example.com');
    expect(await services.vault.get(env.id)).toMatchObject({ username: 'alice@example.com', canManage: true });
    expect((await services.vault.get(env.id))?.password).toBeUndefined();
    await services.dispose();

    // After a restart the stored session is used again, without a browser.
    c = await createConsole(dir, { safeStorage });
    await c.services.start();
    expect(c.services.requireSession(env.id).view()).toMatchObject({ auth: 'authenticated', username: 'alice@example.com', canManage: true, hasRememberedPassword: false });
  });

  it('a person the environment does not admit gets the server\'s reason, and nothing is stored', async () => {
    const { services, env, dispatch } = await desktop('mallory');
    const result = (await dispatch('session.loginSingleSignOn', [env.id])) as IpcResult<SessionView>;
    expect(result).toMatchObject({ ok: false, error: { code: 'login-required', message: 'The e-mail domain elsewhere.test is not allowed to sign in to this monitoring.' } });
    expect(services.requireSession(env.id).view().auth).toBe('logged-out');
    expect(await services.vault.get(env.id)).toBeUndefined();
  });

  it('an environment without single sign-on says so', async () => {
    c = await createConsole(dir, { safeStorage });
    const plain = await startFullHost(dir, { username: 'ops', password: 'pw' });
    try {
      const env = await c.services.addEnvironment({ name: 'Plain', baseUrl: plain.baseUrl, colour: '#2563eb', isProduction: false });
      expect(c.services.requireSession(env.id).view().singleSignOn).toBeUndefined();
      const dispatch = createIpcDispatcher({ services: c.services, openExternal: async () => undefined });
      const result = (await dispatch('session.loginSingleSignOn', [env.id])) as IpcResult<SessionView>;
      expect(result).toMatchObject({ ok: false, error: { code: 'not-found', message: 'Plain offers no single sign-on' } });
    } finally {
      await plain.close();
    }
  });
});
