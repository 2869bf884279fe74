import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/renderer/platform/ApiError.js';
import { SESSION_EXPIRED_MESSAGE, useSessionStore } from '../../src/renderer/stores/session.js';
import { createFakePlatform } from './fakePlatform.js';
import { piniaWith } from './harness.js';

describe('session store', () => {
  it('reads the config once and starts signed out when authentication is on', async () => {
    const platform = createFakePlatform();
    piniaWith(platform);
    const session = useSessionStore();
    await Promise.all([session.init(), session.init()]);
    expect(platform.callsOf('config.get')).toHaveLength(1);
    expect(session.requiresAuth).toBe(true);
    expect(session.isAuthenticated).toBe(false);
  });

  it('requireAuthentication=false → authenticated without any login', async () => {
    const platform = createFakePlatform({ config: { requireAuthentication: false } });
    piniaWith(platform);
    const session = useSessionStore();
    await session.init();
    expect(session.isAuthenticated).toBe(true);
    expect(session.user).toBeNull();
  });

  it('login keeps the session on the platform and reports canManage', async () => {
    const platform = createFakePlatform();
    platform.handle('auth.login', (p) => {
      if (p.password !== 'admin') throw new ApiError(401, 'Invalid credentials');
      return { token: 'jwt-1', expiresAt: '2099-01-01T00:00:00Z', username: p.username, canManage: false };
    });
    piniaWith(platform);
    const session = useSessionStore();
    await session.init();
    await expect(session.login('admin', 'wrong')).rejects.toMatchObject({ status: 401 });
    expect(session.isAuthenticated).toBe(false);
    await session.login('admin', 'admin');
    expect(session.isAuthenticated).toBe(true);
    expect(platform.stored).toEqual({ username: 'admin', expiresAt: '2099-01-01T00:00:00Z', canManage: false, token: 'jwt-1' });
  });

  it('a 401 from any data call ends the session with a message', async () => {
    const platform = createFakePlatform({ session: { username: 'admin', canManage: false, token: 'old', expiresAt: '2099-01-01T00:00:00Z' } });
    platform.handle('tasks.counts', () => {
      throw new ApiError(401, 'Unauthorized');
    });
    piniaWith(platform);
    const session = useSessionStore();
    await session.init();
    expect(session.isAuthenticated).toBe(true);
    await expect(session.call('tasks.counts', {})).rejects.toMatchObject({ status: 401 });
    expect(session.isAuthenticated).toBe(false);
    expect(session.notice).toBe(SESSION_EXPIRED_MESSAGE);
    expect(platform.stored).toBeNull();
  });

  it('a 401 is not a logout when the host runs without authentication', async () => {
    const platform = createFakePlatform({ config: { requireAuthentication: false } });
    platform.handle('tasks.counts', () => {
      throw new ApiError(401, 'Unauthorized');
    });
    piniaWith(platform);
    const session = useSessionStore();
    await session.init();
    await expect(session.call('tasks.counts', {})).rejects.toMatchObject({ status: 401 });
    expect(session.isAuthenticated).toBe(true);
    expect(session.notice).toBeNull();
  });

  it('a stored session past its expiry is dropped at start with the message', async () => {
    const platform = createFakePlatform({ session: { username: 'admin', canManage: false, token: 'old', expiresAt: '2000-01-01T00:00:00Z' } });
    piniaWith(platform);
    const session = useSessionStore();
    await session.init();
    expect(session.isAuthenticated).toBe(false);
    expect(session.notice).toBe(SESSION_EXPIRED_MESSAGE);
  });

  it('management is offered only with the platform capability, managementEnabled and canManage together', async () => {
    const cases = [
      { manage: false, enabled: true, can: true, expected: false },
      { manage: true, enabled: false, can: true, expected: false },
      { manage: true, enabled: true, can: false, expected: false },
      { manage: true, enabled: true, can: true, expected: true },
    ];
    for (const c of cases) {
      const platform = createFakePlatform({ manage: c.manage, config: { managementEnabled: c.enabled }, session: { username: 'ops', canManage: c.can, token: 't' } });
      piniaWith(platform);
      const session = useSessionStore();
      await session.init();
      expect(session.canManageHere).toBe(c.expected);
    }
  });

  it('an unreachable service is an init error, and init can be retried', async () => {
    const platform = createFakePlatform();
    let up = false;
    platform.handle('config.get', () => {
      if (!up) throw new ApiError(0, 'Network Error');
      return { apiBasePath: '', uiBasePath: '', signalRHubPath: '', requireAuthentication: true, uiEnabled: true, managementEnabled: false, eventDebounceMs: 1000, passwordLoginEnabled: true };
    });
    piniaWith(platform);
    const session = useSessionStore();
    await session.init();
    expect(session.initError).toMatch(/cannot be reached/);
    up = true;
    await session.init();
    expect(session.initError).toBeNull();
    expect(session.initialized).toBe(true);
  });
});
