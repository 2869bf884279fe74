import { describe, expect, it } from 'vitest';
import { reactive } from 'vue';
import type { DesktopBridge } from '../../src/shared/ipcContract.js';
import { invoke } from '../../src/renderer/platform/desktop/bridgeClient.js';

/** A bridge that copies arguments the way Electron's contextBridge does (structured clone). */
function cloningBridge(received: unknown[][]): DesktopBridge {
  return {
    invoke: ((_channel: string, ...args: unknown[]) => {
      const copy = structuredClone(args);
      received.push(copy);
      return Promise.resolve({ ok: true, value: undefined });
    }) as DesktopBridge['invoke'],
    onEvent: () => () => undefined,
    platform: 'linux',
  };
}

describe('desktop bridge client', () => {
  it('sends settings spread from reactive state (nested reactive arrays) as plain data', async () => {
    const state = reactive({ settings: { scope: 'chosen' as const, chosenEnvironmentIds: ['a', 'b'], mutedEnvironmentIds: ['c'] } });
    const received: unknown[][] = [];
    await invoke(cloningBridge(received), 'notifications.setSettings', { ...state.settings, mutedEnvironmentIds: [...state.settings.mutedEnvironmentIds, 'd'] });
    expect(received).toEqual([[{ scope: 'chosen', chosenEnvironmentIds: ['a', 'b'], mutedEnvironmentIds: ['c', 'd'] }]]);
  });

  it('reports a refused call with the status of its code (an address changed during a login: 409)', async () => {
    const bridge: DesktopBridge = { ...cloningBridge([]), invoke: (() => Promise.resolve({ ok: false, error: { code: 'conflict', message: 'The address of this environment changed during the login' } })) as DesktopBridge['invoke'] };
    await expect(invoke(bridge, 'session.retry', 'x')).rejects.toMatchObject({ status: 409, message: 'The address of this environment changed during the login' });
  });
});
