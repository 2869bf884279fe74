import { describe, expect, it } from 'vitest';
import type { EnvironmentStatusView } from '../../src/shared/environmentStatus.js';
import type { DesktopBridge } from '../../src/shared/ipcContract.js';
import type { RendererEvent } from '../../src/shared/rendererEvents.js';
import { createDesktopState } from '../../src/renderer/desktop/desktopState.js';

function env(id: string, name: string): EnvironmentStatusView {
  return {
    id,
    name,
    baseUrl: `https://${id}.example.com`,
    colour: '#2563eb',
    isProduction: false,
    session: { environmentId: id, auth: 'authenticated', canManage: false, managementEnabled: false, requireAuthentication: true, hasRememberedPassword: false },
    hub: { state: 'connected' },
    live: 'connected',
  } as EnvironmentStatusView;
}

/**
 * A bridge over two environments whose answers wait until the test lets them go, and that
 * records every channel called; `push` sends a main event as the preload would.
 */
function slowBridge(pendingOpen: unknown = null) {
  const listeners: Array<(e: RendererEvent) => void> = [];
  const calls: string[] = [];
  let release: () => void = () => undefined;
  const released = new Promise<void>((r) => (release = r));
  const values: Record<string, unknown> = {
    'environments.list': [env('stg', 'Staging'), env('prd', 'Production')],
    'vault.status': { storage: 'keychain' },
    'notifications.getSettings': { scope: 'all', chosenEnvironmentIds: [], mutedEnvironmentIds: [] },
    'inbox.list': [],
    'window.ready': pendingOpen,
  };
  const bridge: DesktopBridge = {
    invoke: (async (channel: string) => {
      calls.push(channel);
      await released;
      return { ok: true, value: values[channel] ?? null };
    }) as DesktopBridge['invoke'],
    onEvent: (listener) => {
      listeners.push(listener);
      return () => undefined;
    },
    platform: 'linux',
  };
  return { bridge, calls, release, push: (e: RendererEvent) => listeners.forEach((l) => l(e)) };
}

describe('desktop state at start', () => {
  it('a deep link that arrives while the renderer starts is kept, not replaced by the remembered environment', async () => {
    localStorage.setItem('svc-monitor.desktop.active', 'stg');
    const { bridge, release, push } = slowBridge();
    const controller = createDesktopState(bridge);
    const starting = controller.start();
    push({ type: 'open', target: { kind: 'task', environmentId: 'prd', taskId: 't-1' } });
    release();
    await starting;
    expect(controller.state.activeId).toBe('prd');
    expect(controller.state.pendingRoute).toBe('/tasks/t-1');
    expect(localStorage.getItem('svc-monitor.desktop.active')).toBe('prd');
  });

  it('a link main received before the renderer listened (the link that started the app) is asked for and opened', async () => {
    localStorage.setItem('svc-monitor.desktop.active', 'stg');
    const { bridge, release, calls } = slowBridge({ kind: 'route', environmentId: 'prd', path: '/tasks?status=Failed' });
    const controller = createDesktopState(bridge);
    release();
    await controller.start();
    expect(calls).toContain('window.ready');
    expect(controller.state.activeId).toBe('prd');
    expect(controller.state.pendingRoute).toBe('/tasks?status=Failed');
  });

  it('without a link the remembered environment opens', async () => {
    localStorage.setItem('svc-monitor.desktop.active', 'prd');
    const { bridge, release } = slowBridge();
    const controller = createDesktopState(bridge);
    release();
    await controller.start();
    expect(controller.state.activeId).toBe('prd');
    expect(controller.state.pendingRoute).toBeNull();
  });
});

describe('desktop state during a failure storm', () => {
  const item = (n: number, read = false) => ({
    id: `f${n}`,
    environmentId: 'prd',
    environmentName: 'Production',
    isProduction: true,
    taskId: `t-${n}`,
    taskType: 'Billing.Invoice',
    kind: 'Failed' as const,
    message: `boom ${n}`,
    eventDateUtc: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
    burstId: 'b1',
    read,
  });

  it('applies the inbox changes main sends (new items in date order, read ids, dropped oldest) without fetching the whole inbox', async () => {
    const { bridge, release, push, calls } = slowBridge();
    release();
    const controller = createDesktopState(bridge);
    await controller.start();
    const fetchedBefore = calls.filter((c) => c === 'inbox.list').length;
    push({ type: 'inbox', unread: 2, total: 2, changes: [{ kind: 'added', items: [item(3), item(1)], dropped: [] }] });
    push({ type: 'inbox', unread: 2, total: 2, changes: [{ kind: 'added', items: [item(2)], dropped: ['f1'] }, { kind: 'read', ids: ['f3'] }] });
    expect(controller.state.inbox.map((i) => [i.id, i.read])).toEqual([
      ['f3', true],
      ['f2', false],
    ]);
    expect(controller.state.unread).toBe(1);
    expect(calls.filter((c) => c === 'inbox.list').length).toBe(fetchedBefore);
    // A reset (the inbox of an earlier run put back) fetches the list again.
    push({ type: 'inbox', unread: 0, total: 0, changes: [{ kind: 'reset' }] });
    expect(calls.filter((c) => c === 'inbox.list').length).toBe(fetchedBefore + 1);
  });
});
