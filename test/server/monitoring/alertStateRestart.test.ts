import { afterEach, describe, expect, it } from 'vitest';
import { sleep } from '../../fixtures/server/engineHarness.js';
import { openMonitoredStore, type MonitoredStore } from '../../fixtures/server/monitoredStore.js';
import { finishRun, insertTask, serve, type Served } from '../../fixtures/server/servedMonitoring.js';
import { webhookReceiver } from '../../fixtures/server/webhookReceiver.js';
import { waitFor } from '../../fixtures/waitFor.js';

// A rule's firing state is kept in the store (alert_states): a monitoring that starts again on
// the same store (a restarted process, or a new alert leader on PostgreSQL) neither sends
// "firing" a second time nor forgets to send "resolved".

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!().catch(() => undefined);
});

describe('alert rules across a restart of the monitoring', () => {
  it('a QueueBacklog rule firing before the restart sends no second firing after it, and one resolved when the backlog clears', async () => {
    const t: MonitoredStore = openMonitoredStore();
    cleanups.push(() => t.destroy());
    const hook = await webhookReceiver();
    cleanups.push(() => hook.close());
    const rules = [{ on: 'QueueBacklog', name: 'billing backlog', queues: ['billing'], threshold: 2, windowMs: 100, webhook: { url: hook.url } }];
    const start = async (): Promise<Served> => {
      const served = await serve(await t.source(), { enableAuthentication: false, alerts: rules as never });
      cleanups.push(() => served.close());
      return served;
    };

    const ids = await t.seed((db) => [1, 2, 3].map(() => insertTask(db, { queue: 'billing' })));
    const first = await start();
    await waitFor(() => hook.received.length === 1, 15_000, 'the firing message');
    expect(hook.received[0]!.json).toMatchObject({ rule: 'billing backlog', state: 'firing', count: 3 });
    await first.close();

    // The backlog still holds: the new monitoring looks a few times (once a second) and says nothing.
    await start();
    await sleep(3500);
    expect(hook.received.map((r) => r.json.state)).toEqual(['firing']);

    await t.seed((db) => {
      for (const id of ids) finishRun(db, id, 'Completed', Date.now(), 5);
    });
    await waitFor(() => hook.received.length === 2, 15_000, 'the resolved message');
    await sleep(2500);
    expect(hook.received.map((r) => r.json.state)).toEqual(['firing', 'resolved']);
    expect(hook.received[1]!.json).toMatchObject({ rule: 'billing backlog', state: 'resolved' });
  }, 60_000);
});
