import { beforeAll, describe, expect, it } from 'vitest';
import { createIpcDispatcher } from '../../src/main/ipc/ipcDispatcher.js';
import type { IpcResult } from '../../src/shared/ipcContract.js';
import type { SearchAnswer } from '../../src/shared/search.js';
import { aesSafeStorage } from '../fixtures/main/aesSafeStorage.js';
import { useConsoleSuite } from '../fixtures/main/consoleSuite.js';
import { startFullHost } from '../fixtures/main/fullHost.js';

const MIN = 60_000;

/** Searching across environments (main): each environment answers from its own API, errors stay per environment. */
describe('search across environments (main): task id, type, key or failure fingerprint', () => {
  const suite = useConsoleSuite({
    start: async (dir) => ({
      eu: await startFullHost(dir, { username: 'ops', password: 'eu-pw' }),
      us: await startFullHost(dir, { username: 'ops', password: 'us-pw' }),
      gone: await startFullHost(dir, { username: 'ops', password: 'gone-pw' }),
    }),
    userData: 'ud',
    console: { safeStorage: aesSafeStorage('gnome_libsecret') },
    timeoutMs: 60_000,
  });
  const ids: Record<string, string> = {};
  const seeded: Record<string, string> = {};
  const search = async (environment: string, text: string) => {
    const dispatch = createIpcDispatcher({ services: suite.services, openExternal: async () => undefined });
    return (await dispatch('search.environment', [ids[environment], text])) as IpcResult<SearchAnswer>;
  };
  const found = async (environment: string, text: string) => {
    const r = await search(environment, text);
    if (!r.ok) throw new Error(r.error.message);
    return r.value;
  };

  beforeAll(async () => {
    const { eu, us, gone } = suite.hosts;
    const now = Date.now();
    seeded.euSend1 = eu.seedFailed(now - 10 * MIN, 'Billing.Invoices.SendInvoice');
    seeded.euSend2 = eu.seedFailed(now - 5 * MIN, 'Billing.Invoices.SendInvoice');
    seeded.euNightly = eu.seedSchedule('nightly-report');
    seeded.usBuild = us.seedFailed(now - 3 * MIN, 'Reports.Build');
    for (const [name, host, password] of [['EU', eu, 'eu-pw'], ['US', us, 'us-pw'], ['Gone', gone, 'gone-pw']] as const) {
      ids[name] = (await suite.services.addEnvironment({ name, baseUrl: host.baseUrl, colour: '#2563eb', isProduction: false })).id;
      await suite.services.requireSession(ids[name]!).loginWithPassword('ops', password, false);
    }
    ids.Idle = (await suite.services.addEnvironment({ name: 'Idle', baseUrl: us.baseUrl, colour: '#2563eb', isProduction: false })).id;
    await gone.close();
  }, 60_000);

  it('finds tasks by type (partial) and by task key, newest first', async () => {
    const eu = await found('EU', 'SendInvoice');
    expect(eu.hits.map((h) => [h.taskId, h.matched, h.status])).toEqual([
      [seeded.euSend2, 'type or key', 'Failed'],
      [seeded.euSend1, 'type or key', 'Failed'],
    ]);
    expect(eu.total).toBe(2);
    expect(eu.hits[0]!.environmentId).toBe(ids.EU);
    expect((await found('US', 'SendInvoice')).hits).toEqual([]);
    expect((await found('EU', 'nightly-report')).hits.map((h) => h.taskId)).toEqual([seeded.euNightly]);
  });

  it('finds a task by its id in the environment that has it only', async () => {
    expect((await found('US', seeded.usBuild!)).hits.map((h) => [h.taskId, h.matched, h.type])).toEqual([[seeded.usBuild, 'id', 'Build']]);
    expect(await found('EU', seeded.usBuild!)).toEqual({ hits: [], total: 0 });
  });

  it('finds failed tasks by a failure group’s fingerprint in every environment', async () => {
    const fingerprint = 'System.InvalidOperationException: boom';
    expect((await found('EU', fingerprint)).hits.map((h) => [h.taskId, h.matched]).sort()).toEqual(
      [
        [seeded.euSend1, 'fingerprint'],
        [seeded.euSend2, 'fingerprint'],
      ].sort(),
    );
    expect((await found('US', fingerprint)).hits.map((h) => h.taskId)).toEqual([seeded.usBuild]);
  });

  it('says per environment what went wrong: a host that is gone, a login missing, a search that is empty', async () => {
    const gone = await search('Gone', 'SendInvoice');
    expect(gone.ok).toBe(false);
    expect(!gone.ok && gone.error.code).toBe('network');
    const idle = await search('Idle', 'SendInvoice');
    expect(!idle.ok && idle.error.code).toBe('login-required');
    const empty = await search('EU', '   ');
    expect(!empty.ok && [empty.error.code, empty.error.message]).toEqual(['invalid-arguments', 'Type a task id, a type, a key or a failure fingerprint to search for']);
  });
});
