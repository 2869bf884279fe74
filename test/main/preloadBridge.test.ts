import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { IPC_CHANNEL_TABLE } from '../../src/main/ipc/ipcChannelTable.js';
import { BRIDGE_GLOBAL, IPC_CHANNEL_NAMES, IPC_PREFIX, type DesktopBridge } from '../../src/shared/ipcContract.js';
import { BAD_ARGUMENTS } from '../fixtures/main/badIpcArguments.js';
import { createRecordingElectron } from '../fixtures/main/recordingElectron.js';

// The preload and main must agree on every channel name: the real preload (src/preload) is
// loaded against the same recording electron module as the real main process, and what it
// invokes must be a channel main handles (Electron rejects any other with "No handler").

const dir = await mkdtemp(join(tmpdir(), 'svc-preload-'));
const rec = createRecordingElectron(join(dir, 'user-data'), process.cwd());
const exposed = new Map<string, unknown>();
const invoked: string[] = [];
const APP_FRAME = { senderFrame: { url: 'app://console/', parent: null } };
const ipcRenderer = {
  invoke: async (channel: string, ...args: unknown[]) => {
    invoked.push(channel);
    const handler = rec.ipcHandlers.get(channel);
    if (!handler) throw new Error(`Error invoking remote method '${channel}': Error: No handler registered for '${channel}'`);
    return handler(APP_FRAME, ...args);
  },
  on: () => ipcRenderer,
  removeListener: () => ipcRenderer,
};
vi.mock('electron', () => ({
  ...rec.electron,
  contextBridge: { exposeInMainWorld: (key: string, value: unknown) => void exposed.set(key, value) },
  ipcRenderer,
}));

describe('the preload bridge against the real main process', () => {
  let bridge: DesktopBridge;
  beforeAll(async () => {
    await import('../../src/main/index.js');
    rec.emitReady();
    const deadline = Date.now() + 10_000;
    while (rec.ipcHandlers.size === 0) {
      if (Date.now() > deadline) throw new Error('main registered no IPC handler');
      await new Promise((r) => setTimeout(r, 20));
    }
    await import('../../src/preload/index.js');
    bridge = exposed.get(BRIDGE_GLOBAL) as DesktopBridge;
  });
  afterAll(async () => {
    rec.emitBeforeQuit();
    await rm(dir, { recursive: true, force: true });
  });

  it(`exposes one global, ${BRIDGE_GLOBAL}, whose every channel reaches a handler of main`, async () => {
    expect([...exposed.keys()]).toEqual([BRIDGE_GLOBAL]);
    const invoke = bridge.invoke as unknown as (channel: string, ...args: unknown[]) => Promise<unknown>;
    // Arguments are left out: main's validation answers, which proves the call arrived.
    for (const name of IPC_CHANNEL_NAMES) {
      const answer = (await invoke(name)) as { ok: boolean };
      expect(typeof answer.ok, name).toBe('boolean');
    }
    expect(invoked).toHaveLength(IPC_CHANNEL_NAMES.length);
    expect(invoked.every((c) => rec.ipcHandlers.has(c))).toBe(true);
    expect(await invoke('environments.list')).toEqual({ ok: true, value: [] });
  });

  it('exposes every channel of main’s table, and each refuses bad arguments with an error naming the channel and what is wrong', async () => {
    const invoke = bridge.invoke as unknown as (channel: string, ...args: unknown[]) => Promise<unknown>;
    const tableChannels = Object.keys(IPC_CHANNEL_TABLE);
    expect(tableChannels.sort()).toEqual([...IPC_CHANNEL_NAMES].sort());
    expect([...rec.ipcHandlers.keys()].filter((c) => c.startsWith(IPC_PREFIX)).sort()).toEqual(tableChannels.map((c) => IPC_PREFIX + c).sort());
    for (const channel of tableChannels) {
      for (const [args, says] of BAD_ARGUMENTS[channel as keyof typeof BAD_ARGUMENTS]) {
        invoked.length = 0;
        const answer = await invoke(channel, ...args);
        expect(invoked, channel).toEqual([IPC_PREFIX + channel]);
        expect(answer, `${channel} ${JSON.stringify(args).slice(0, 80)}`).toEqual({ ok: false, error: { code: 'invalid-arguments', message: expect.stringMatching(says) } });
        expect((answer as { error: { message: string } }).error.message.startsWith(`${channel}: `)).toBe(true);
      }
    }
  });
});
