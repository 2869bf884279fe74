import { describe, expect, it } from 'vitest';
import { failureFingerprint } from '../../../server/src/storage/sqlite/functions/failureFingerprint.js';
import { finishRun, getJson, insertTask, login, withServed } from '../../fixtures/server/servedMonitoring.js';
import { openMonitoredStore } from '../../fixtures/server/monitoredStore.js';

const NOW = Date.UTC(2026, 10, 23, 15, 30);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('failure fingerprints', () => {
  it('keep the first line with numbers, ids and quoted values masked', () => {
    expect(failureFingerprint('Error: customer "ACME-42" not found (id 3f2a9c1b-1111-2222-3333-444455556666)\n    at x (a.js:1:2)')).toBe(
      'Error: customer "…" not found (id #)',
    );
    expect(failureFingerprint('Error: timeout after 3000 ms')).toBe(failureFingerprint('Error: timeout after 15 ms'));
    expect(failureFingerprint("KeyError: 'order-17'")).toBe("KeyError: '…'");
    expect(failureFingerprint(null)).toBe('(no error text)');
  });
});

describe('GET /statistics/failure-groups', () => {
  it('groups failed runs by type and fingerprint with count, first/last seen and a sample, per range', async () => {
    const ids: Record<string, string> = {};
    await withServed(
      (t) => {
        const fail = (type: string, endMs: number, exception: string) => {
          const id = insertTask(t.db, { type, status: 'InProgress', created_at: endMs - 1000 });
          finishRun(t.db, id, 'Failed', endMs, 0, exception);
          return id;
        };
        fail('Billing.SendInvoice', NOW - 2 * HOUR, 'Error: SMTP 421 from mail-7.example for invoice 1001');
        ids.latest = fail('Billing.SendInvoice', NOW - HOUR, 'Error: SMTP 450 from mail-2.example for invoice 1002\n  at send');
        fail('Billing.SendInvoice', NOW - 10 * DAY, 'Error: SMTP 421 from mail-1.example for invoice 77');
        ids.other = fail('Billing.SendInvoice', NOW - 3 * HOUR, 'TypeError: amount is not a number');
        fail('Reports.Nightly', NOW - 2 * HOUR, 'Error: SMTP 421 from mail-7.example for invoice 1001');
        const ok = insertTask(t.db, { type: 'Billing.SendInvoice', status: 'InProgress' });
        finishRun(t.db, ok, 'Completed', NOW - HOUR, 5);
        return { loginRateLimit: false, now: () => NOW };
      },
      async (s) => {
        const token = await login(s.api);
        const today = await getJson(`${s.api}/statistics/failure-groups?range=Today`, token);
        expect(today.status).toBe(200);
        expect(today.body.range).toBe('Today');
        expect(today.body.groups).toEqual([
          {
            taskType: 'Billing.SendInvoice',
            fingerprint: 'Error: SMTP # from mail-#.example for invoice #',
            count: 2,
            firstSeenUtc: new Date(NOW - 2 * HOUR).toISOString(),
            lastSeenUtc: new Date(NOW - HOUR).toISOString(),
            sampleTaskId: ids.latest,
          },
          expect.objectContaining({ taskType: 'Reports.Nightly', count: 1 }),
          expect.objectContaining({ taskType: 'Billing.SendInvoice', fingerprint: 'TypeError: amount is not a number', count: 1, sampleTaskId: ids.other }),
        ]);
        const month = await getJson(`${s.api}/statistics/failure-groups?range=Month`, token);
        expect(month.body.groups[0]).toMatchObject({ count: 3, firstSeenUtc: new Date(NOW - 10 * DAY).toISOString() });
        const bad = await getJson(`${s.api}/statistics/failure-groups?range=Year`, token);
        expect(bad.status).toBe(400);
        expect(Object.keys(bad.body.errors)).toEqual(['range']);
      },
    );
  });

  it('the rebuild recomputes the same groups from the task table', async () => {
    const t = openMonitoredStore();
    try {
      await t.seed((db) => {
        for (let i = 0; i < 5; i++) {
          const id = insertTask(db, { type: 'T.A', status: 'InProgress' });
          finishRun(db, id, 'Failed', NOW - i * HOUR, 0, `Error: code ${i}`);
        }
      });
      // PostgreSQL keeps the groups as rolled-up rows plus pending deltas (the _v view).
      const groups = t.backend === 'postgres' ? 'failure_groups_hour_v' : 'failure_groups_hour';
      const read = () =>
        t.probe.rows(`SELECT bucket, type, fingerprint, SUM(n) AS n, MIN(first_seen) AS first_seen, MAX(last_seen) AS last_seen
          FROM ${groups} GROUP BY bucket, type, fingerprint ORDER BY 1, 2, 3`);
      const before = await read();
      await t.rebuildReadModels();
      expect(await read()).toEqual(before);
      expect(before).toHaveLength(5);
    } finally {
      await t.destroy();
    }
  });
});

describe('queue latency fields on GET /queues', () => {
  it('oldestQueuedAgeMs of the next Queued row in line and the runs finished in the last minute', async () => {
    await withServed(
      (t) => {
        insertTask(t.db, { queue: 'billing', status: 'Queued', created_at: NOW - 90_000, scheduled_at: NOW - 40_000 });
        insertTask(t.db, { queue: 'billing', status: 'Queued', created_at: NOW - 10_000, scheduled_at: NOW - 10_000 });
        for (const end of [NOW - 5_000, NOW - 30_000, NOW - 45_000, NOW - 5 * 60_000]) {
          const id = insertTask(t.db, { queue: 'billing', status: 'InProgress' });
          finishRun(t.db, id, 'Completed', end, 10);
        }
        const idle = insertTask(t.db, { queue: 'idle', status: 'InProgress' });
        finishRun(t.db, idle, 'Completed', NOW - 10 * 60_000, 10);
        return { loginRateLimit: false, now: () => NOW };
      },
      async (s, t) => {
        // NOW is hours before the wall clock: the roll-up must not prune buckets by the server's clock.
        await t.rollUp();
        const token = await login(s.api);
        const r = await getJson(`${s.api}/queues`, token);
        expect(r.status).toBe(200);
        const billing = r.body.find((q: { queueName: string }) => q.queueName === 'billing');
        expect(billing).toMatchObject({ queuedTasks: 2, oldestQueuedAgeMs: 40_000, finishedLastMinute: 3 });
        const idle = r.body.find((q: { queueName: string }) => q.queueName === 'idle');
        expect(idle.oldestQueuedAgeMs).toBeUndefined();
        expect(idle.finishedLastMinute).toBe(0);
      },
    );
  });
});
