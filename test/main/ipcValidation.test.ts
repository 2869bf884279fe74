import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConsoleServices } from '../../src/main/ConsoleServices.js';
import { IPC_CHANNEL_TABLE } from '../../src/main/ipc/ipcChannelTable.js';
import { createIpcDispatcher, type IpcDispatcher } from '../../src/main/ipc/ipcDispatcher.js';
import { IPC_CHANNEL_NAMES } from '../../src/shared/ipcContract.js';
import { BAD_ARGUMENTS } from '../fixtures/main/badIpcArguments.js';
import { createConsole } from '../fixtures/main/consoleSuite.js';
import { createTempDir } from '../fixtures/main/tempDir.js';

const GUID = '0b6c1f7e-2a44-4d4b-9f3e-1f2a3b4c5d6e';

describe('IPC argument validation in main', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let services: ConsoleServices;
  let dispatch: IpcDispatcher;
  const opened: string[] = [];

  beforeEach(async () => {
    ({ dir, cleanup } = await createTempDir());
    ({ services } = await createConsole(dir));
    dispatch = createIpcDispatcher({ services, openExternal: async (url) => void opened.push(url) });
  });
  afterEach(async () => {
    await services.dispose();
    await cleanup();
  });

  it('has one table entry per bridge channel and nothing else', () => {
    expect(Object.keys(IPC_CHANNEL_TABLE).sort()).toEqual([...IPC_CHANNEL_NAMES].sort());
    expect(Object.keys(BAD_ARGUMENTS).sort()).toEqual([...IPC_CHANNEL_NAMES].sort());
  });

  for (const channel of IPC_CHANNEL_NAMES) {
    it(`refuses bad arguments on ${channel} with an invalid-arguments error`, async () => {
      for (const [args, says] of BAD_ARGUMENTS[channel]) {
        const result = await dispatch(channel, args);
        expect(result, `${channel} ${JSON.stringify(args).slice(0, 80)}`).toMatchObject({ ok: false, error: { code: 'invalid-arguments', message: expect.stringMatching(says) } });
        expect(result.ok ? '' : result.error.message).toMatch(new RegExp(`^${channel.replace('.', '\\.')}: `));
      }
    });
  }

  it('refuses an unknown channel', async () => {
    expect(await dispatch('fs.readFile', ['/etc/passwd'])).toEqual({ ok: false, error: { code: 'not-found', message: 'Unknown IPC channel "fs.readFile"' } });
  });

  it('runs valid calls, and the API proxy validates each operation’s own parameters', async () => {
    const added = await dispatch('environments.add', [{ name: 'Local', baseUrl: 'http://127.0.0.1:9', colour: '#123456', isProduction: false }]);
    expect(added.ok).toBe(true);
    const id = (added as { value: { id: string } }).value.id;
    const list = await dispatch('environments.list', []);
    expect(list.ok && (list.value as Array<{ name: string }>).map((e) => e.name)).toEqual(['Local']);

    const badGuid = await dispatch('api.call', [id, 'tasks.get', { id: 'not-a-guid' }]);
    expect(badGuid).toMatchObject({ ok: false, error: { code: 'invalid-arguments', message: expect.stringMatching(/tasks.get: id: must be a GUID/) } });
    const badStatus = await dispatch('api.call', [id, 'tasks.list', { statuses: ['Exploded'] }]);
    expect(badStatus).toMatchObject({ ok: false, error: { code: 'invalid-arguments' } });
    const extraKey = await dispatch('api.call', [id, 'tasks.counts', { sneaky: 1 }]);
    expect(extraKey).toMatchObject({ ok: false, error: { code: 'invalid-arguments' } });
    const pageSize = await dispatch('api.call', [id, 'tasks.list', { pageSize: 100_000 }]);
    expect(pageSize).toMatchObject({ ok: false, error: { code: 'invalid-arguments', message: expect.stringMatching(/pageSize/) } });
    // Valid params reach the network: port 9 on loopback refuses the connection.
    const unreachable = await dispatch('api.call', [id, 'tasks.get', { id: GUID }]);
    expect(unreachable).toMatchObject({ ok: false });

    expect(await dispatch('shell.openExternal', ['https://example.com/docs'])).toEqual({ ok: true, value: null });
    expect(opened).toEqual(['https://example.com/docs']);
  });
});
