import { beforeAll, describe, expect, it } from 'vitest';
import type { BulkOperation } from '../../server/src/contracts/operations.js';
import { OPERATOR, startPowerHost } from '../fixtures/server/powerHost.js';
import { aesSafeStorage } from '../fixtures/main/aesSafeStorage.js';
import { useConsoleSuite } from '../fixtures/main/consoleSuite.js';
import { waitFor } from '../fixtures/waitFor.js';

/** A bulk action's progress reaches the console window as the hub reports it, through the real SignalR client of HubManager. */
describe('bulk progress over the real hub (real engine, real @microsoft/signalr client in main)', () => {
  const suite = useConsoleSuite({
    start: async () => {
      const host = await startPowerHost();
      return { host: { baseUrl: host.s.baseUrl, close: () => host.close(), power: host } };
    },
    userData: 'ud',
    console: { safeStorage: aesSafeStorage('gnome_libsecret'), hub: { reconnectDelaysMs: [0, 100, 300], retryAfterFailureMs: 500 } },
  });
  let envId: string;
  const progress: BulkOperation[] = [];

  beforeAll(async () => {
    envId = (await suite.services.addEnvironment({ name: 'Production', baseUrl: suite.hosts.host.baseUrl, colour: '#dc2626', isProduction: true })).id;
    suite.services.onEvent((e) => {
      if (e.type === 'bulkProgress' && e.environmentId === envId) progress.push(e.progress);
    });
    await suite.services.requireSession(envId).loginWithPassword(OPERATOR.managementUsername, OPERATOR.managementPassword, false);
    await suite.services.hub.whenState(envId, 'connected');
  });

  it('a bulk retry started through the console is followed to Completed by BulkProgress renderer events', async () => {
    const power = suite.hosts.host.power;
    const ids = await power.insertMany(Array.from({ length: 1200 }, () => ({ type: 'Power.HubBulk', status: 'Failed', exception: 'Error: x' })));
    const started = (await suite.services.proxy.call(envId, 'management.bulk', {
      action: 'retry',
      filter: { taskType: 'Power.HubBulk', statuses: ['Failed'] },
      expectedCount: 1200,
    })) as BulkOperation;
    expect(started).toMatchObject({ state: 'Running', count: 1200 });
    await waitFor(() => progress.some((p) => p.operationId === started.operationId && p.state === 'Completed'), 10_000, 'the final BulkProgress event', 25);
    const mine = progress.filter((p) => p.operationId === started.operationId);
    expect(mine.at(-1)).toMatchObject({ action: 'retry', state: 'Completed', processed: 1200, succeeded: 1200, skipped: 0, requestedBy: 'operator' });
    expect(mine.map((p) => p.processed)).toEqual([...mine.map((p) => p.processed)].sort((a, b) => a - b));
    expect(await power.statuses([ids[0]!, ids[1199]!])).toEqual(['Queued', 'Queued']);
  });
});
