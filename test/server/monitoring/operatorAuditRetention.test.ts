import { describe, expect, it } from 'vitest';
import type { OperatorAuditPage } from '../../../server/src/contracts/index.js';
import { resolveServeSettings } from '../../../server/src/cli/serveSettings.js';
import { createMonitoring } from '../../../server/src/monitoring/createMonitoring.js';
import { openDatabase } from '../../../server/src/storage/sqlite/connection/openDatabase.js';
import { BACKEND, openStoreUnderTest, type StoreUnderTest } from '../../fixtures/server/storeUnderTest.js';
import { getJson, postJson, serve, type Served } from '../../fixtures/server/servedMonitoring.js';
import { waitFor } from '../../fixtures/waitFor.js';

const DAY = 86_400_000;
const T0 = Date.parse('2026-03-01T12:00:00Z');
const OPTIONS = { managementUsername: 'operator', managementPassword: 'operator-secret', loginRateLimit: false as const, jwtSecret: 's'.repeat(40) };

/**
 * Records are rows of the store: they outlive the process (the SQLite file or PostgreSQL schema
 * opened again), and the retention deletes those older than its days at start.
 */
describe('operator audit: records survive a restart and are cut by retention', () => {
  const served = async (store: StoreUnderTest, clockMs: number, extra: Record<string, unknown> = {}): Promise<Served> =>
    serve({ storage: await store.storage() }, { ...OPTIONS, now: () => clockMs, ...extra });
  const signIn = async (s: Served, username = 'operator', password = 'operator-secret') => postJson(`${s.api}/auth/login`, { username, password });
  const records = async (s: Served, token: string, query = ''): Promise<OperatorAuditPage> => (await getJson(`${s.api}/audit?pageSize=500&${query}`, token)).body as OperatorAuditPage;

  it('kept across a reopened store; older than the retention deleted at the next start', async () => {
    const first = openStoreUnderTest();
    let store = first;
    try {
      let s = await served(store, T0);
      const token = (await signIn(s)).body.token as string;
      // Records are written after each answer: the first is kept before the second sign-in, so that
      // their order (same time, newest id first) is that of the sign-ins on every store.
      await waitFor(async () => (await records(s, token)).totalCount === 1, 10_000, 'the first record', 20);
      expect((await signIn(s, 'intruder', 'nope')).status).toBe(401);
      await waitFor(async () => (await records(s, token)).totalCount === 2, 10_000, 'two records', 20);
      await s.close();
      await store.close();

      // A restarted process, ten days later: both records are still there.
      store = first.reopen();
      s = await served(store, T0 + 10 * DAY);
      const later = (await signIn(s)).body.token as string;
      const kept = await waitFor(async () => {
        const page = await records(s, later);
        return page.totalCount === 3 ? page : undefined;
      }, 10_000, 'three records after the restart', 20);
      expect(kept.items.map((r) => [r.actor, r.result, r.atUtc])).toEqual([
        ['operator', 'ok', new Date(T0 + 10 * DAY).toISOString()],
        ['intruder', 'refused', new Date(T0).toISOString()],
        ['operator', 'ok', new Date(T0).toISOString()],
      ]);
      await s.close();

      // Started 95 days after the first records with the default 90 days: they are gone, the later one stays.
      s = await served(store, T0 + 95 * DAY);
      const after = (await signIn(s)).body.token as string;
      const cut = await waitFor(async () => {
        const page = await records(s, after);
        // Pruned at start; this start's sign-in is written after its answer, so both are awaited.
        return page.totalCount === 2 && page.items.every((r) => Date.parse(r.atUtc) > T0) ? page : undefined;
      }, 10_000, 'the old records to be pruned and the new sign-in kept', 20);
      expect(cut.items.map((r) => r.atUtc)).toEqual([new Date(T0 + 95 * DAY).toISOString(), new Date(T0 + 10 * DAY).toISOString()]);
      await s.close();

      // A shorter retention cuts more: 30 days leave only the newest record (and this start's sign-in).
      s = await served(store, T0 + 100 * DAY, { operatorAuditRetentionDays: 30 });
      const last = (await signIn(s)).body.token as string;
      const short = await waitFor(async () => {
        const page = await records(s, last);
        return page.totalCount === 2 && page.items.every((r) => Date.parse(r.atUtc) > T0 + 10 * DAY) ? page : undefined;
      }, 10_000, 'the 30-day cut', 20);
      expect(short.items.map((r) => r.atUtc)).toEqual([new Date(T0 + 100 * DAY).toISOString(), new Date(T0 + 95 * DAY).toISOString()]);
      await s.close();
    } finally {
      await store.destroy();
    }
  });

  it('a bad retention fails at startup naming the option; the CLI reads it from a flag and the environment', async () => {
    const store = openStoreUnderTest();
    try {
      const storage = await store.storage();
      for (const bad of [0, -1, 2.5, '30', 40_000]) {
        expect(() => createMonitoring({ storage }, { operatorAuditRetentionDays: bad as number, logger: { info: () => {}, warn: () => {} } })).toThrow(/operatorAuditRetentionDays/);
      }
      expect(() => createMonitoring({ storage }, { operatorAuditLogger: {} as never })).toThrow(/operatorAuditLogger/);
    } finally {
      await store.destroy();
    }
    expect(resolveServeSettings(['--operator-audit-retention-days', '30'], {}, { port: 0 }).options).toMatchObject({ operatorAuditRetentionDays: 30 });
    expect(resolveServeSettings([], { SVC_MONITOR_OPERATOR_AUDIT_RETENTION_DAYS: '7' }, { port: 0 }).options).toMatchObject({ operatorAuditRetentionDays: 7 });
  });

  it.skipIf(BACKEND !== 'sqlite')('a SQLite file opened read-only (serve --db): records are listed, new ones go to the log only', async () => {
    const store = openStoreUnderTest();
    try {
      let s = await served(store, T0);
      expect((await signIn(s)).status).toBe(200);
      await s.close();
      await store.close();
      const db = openDatabase({ file: store.location, readonly: true });
      const notes: string[] = [];
      const lines: unknown[] = [];
      try {
        s = await serve({ storage: { db } }, { ...OPTIONS, now: () => T0 + DAY, logger: { info: (m) => notes.push(m), warn: (m) => notes.push(m) }, operatorAuditLogger: { info: (f) => lines.push(f) } });
        const token = (await signIn(s)).body.token as string;
        const page = await records(s, token);
        expect(page.items.map((r) => r.atUtc)).toEqual([new Date(T0).toISOString()]);
        await waitFor(() => lines.length === 1, 5_000, 'the log line of the read-only sign-in');
        expect(notes.filter((n) => /operator audit/.test(n))).toEqual([expect.stringMatching(/is open read-only: operator audit records go to the log only/)]);
        await s.close();
      } finally {
        db.close();
      }
    } finally {
      await store.destroy();
    }
  });
});
