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
