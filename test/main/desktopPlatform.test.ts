import { beforeAll, describe, expect, it } from 'vitest';
import { createIpcDispatcher } from '../../src/main/ipc/ipcDispatcher.js';
import type { DesktopBridge } from '../../src/shared/ipcContract.js';
import { ApiError } from '../../src/renderer/platform/ApiError.js';
import { createDesktopPlatform, ManagementCancelledError, type ManagementConfirmation } from '../../src/renderer/platform/desktop/createDesktopPlatform.js';
import { useConsoleSuite } from '../fixtures/main/consoleSuite.js';
import { waitFor } from '../fixtures/waitFor.js';
import { startStandaloneHost } from '../fixtures/main/monitoringHost.js';

describe('the desktop Platform over the bridge, served by the real main services', () => {
  const suite = useConsoleSuite({
    start: async (dir) => ({
      host: await startStandaloneHost(dir, {
        username: 'viewer',
        password: 'read-pw',
        managementUsername: 'operator',
        managementPassword: 'operate-pw',
        enableManagementEndpoints: true,
        loginRateLimit: false,
      }),
    }),
    userData: 'ud',
  });
  let bridge: DesktopBridge;
  let envId: string;

  beforeAll(async () => {
    envId = (await suite.services.addEnvironment({ name: 'Production', baseUrl: suite.hosts.host.baseUrl, colour: '#dc2626', isProduction: true })).id;
    const dispatch = createIpcDispatcher({ services: suite.services, openExternal: async () => undefined });
    bridge = {
      invoke: ((channel: string, ...args: unknown[]) => dispatch(channel, args)) as DesktopBridge['invoke'],
      onEvent: (l) => suite.services.onEvent(l),
      platform: 'linux',
    };
  });

  function platform(confirm: (r: ManagementConfirmation) => Promise<string | null>) {
    return createDesktopPlatform({ bridge, environmentId: envId, environmentName: 'Production', isProduction: true, session: suite.services.requireSession(envId).view(), confirmManagement: confirm });
  }

  it('logs in through main (the renderer never receives the token) and reports canManage', async () => {
    const p = platform(async () => 'Production');
    await expect(p.call('auth.login', { username: 'viewer', password: 'nope' })).rejects.toMatchObject({ name: 'ApiError', status: 401 });
    const login = await p.call('auth.login', { username: 'operator', password: 'operate-pw' });
    expect(login).toMatchObject({ token: '', username: 'operator', canManage: true });
    expect(JSON.stringify(await p.call('auth.validate', {}))).not.toMatch(/eyJ/);
    const again = platform(async () => 'Production');
    expect(again.session.load()).toMatchObject({ username: 'operator', canManage: true });
    expect(again.session.load()).not.toHaveProperty('token');
  });

  it('turns bridge errors into ApiError with status and problem details', async () => {
    const p = platform(async () => 'Production');
    const err = await p.call('tasks.get', { id: '00000000-0000-4000-8000-000000000000' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 404, problem: { status: 404 } });
    await expect(p.call('tasks.list', { pageSize: 9999 })).rejects.toMatchObject({ status: 400 });
  });

  it('asks for confirmation before a management call, names the environment, and sends nothing when refused', async () => {
    const asked: ManagementConfirmation[] = [];
    const refuse = platform(async (r) => (asked.push(r), null));
    const id = '00000000-0000-4000-8000-000000000001';
    await expect(refuse.call('management.cancel', { id })).rejects.toBeInstanceOf(ManagementCancelledError);
    expect(asked).toEqual([{ operation: 'management.cancel', taskId: id, environmentName: 'Production', isProduction: true }]);
    // Confirmed: the call reaches the host (standalone registration: NotSupported, 501).
    const accept = platform(async () => 'Production');
    expect(await accept.call('management.cancel', { id })).toMatchObject({ status: 'NotSupported' });
  });

  it('main enforces the typed confirmation for production: a renderer that skips or mistypes it gets nothing done', async () => {
    const dispatch = createIpcDispatcher({ services: suite.services, openExternal: async () => undefined });
    const id = '00000000-0000-4000-8000-000000000002';
    expect(await dispatch('api.call', [envId, 'management.cancel', { id }])).toEqual({
      ok: false,
      error: { code: 'forbidden', message: 'management.cancel on a production environment needs the typed confirmation' },
    });
    expect(await dispatch('api.manage', [envId, 'management.cancel', { id }, 'production'])).toEqual({
      ok: false,
      error: { code: 'forbidden', message: 'Production is a production environment: type its name to confirm management.cancel' },
    });
    expect(await dispatch('api.manage', [envId, 'management.cancel', { id }, ' Production '])).toMatchObject({ ok: true, value: { status: 'NotSupported' } });
  });

  it('logs out through main when the dashboard clears its session', async () => {
    const p = platform(async () => 'Production');
    p.session.clear();
    await waitFor(() => suite.services.requireSession(envId).view().auth === 'logged-out', 3_000, 'the logout in main', 25);
    expect(await suite.services.vault.get(envId)).toBeUndefined();
  });
});
