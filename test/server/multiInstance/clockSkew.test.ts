import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../../server/src/engine/Engine.js';
import { startCli } from '../../fixtures/server/cliProcess.js';
import { startInstance, type EngineInstance, type InstanceReport } from '../../fixtures/server/pgInstances.js';
import { parseSamples } from '../../fixtures/server/scrape.js';
import { useSharedDatabase } from '../../fixtures/server/sharedDatabase.js';
import { waitFor } from '../../fixtures/waitFor.js';

const SHIFTED_CLOCK = fileURLToPath(new URL('../../fixtures/shiftedClock.mjs', import.meta.url));
const FIVE_MINUTES = 300_000;
/** How far a host's measured offset may be from its true one here (half a loaded round trip, rounding). */
const OFFSET_TOLERANCE_MS = 100;

/**
 * Hosts whose clocks disagree share the database's: every instant one instance writes and another
 * compares (reservation holds, rate windows, throttle marks, takeovers) is on it, so a skew never
 * lets one instance take another's live reservation and begin its handler a second time.
 */
describe('clock skew between PostgreSQL instances', () => {
  const shared = useSharedDatabase('svc_clock_skew', 3);
  const dispatcher = () => createEngine({ store: shared.store, onError: () => undefined }).handle('Multi.Work', () => undefined);

  /** Runs `count` short tasks on instances with these clock offsets; returns their reports and the task ids. */
  async function runOn(offsets: number[], count: number): Promise<{ reports: InstanceReport[]; ids: string[] }> {
    const instances = [];
    for (const clockOffsetMs of offsets) {
      const i = await startInstance(shared.database.connectionString, { handlerMs: 1, clockOffsetMs });
      shared.running.push(i);
      instances.push(i);
    }
    const d = dispatcher();
    const ids = await Promise.all(Array.from({ length: count }, () => d.dispatch('Multi.Work', {})));
    await waitFor(async () => {
      const { rows } = await shared.storage.query<{ n: number }>(`SELECT COUNT(*) AS n FROM tasks WHERE id = ANY($1::text[]) AND status = 'Completed'`, [ids]);
      return rows[0]!.n === count;
    }, 60_000, 'every task to complete', 50);
    const reports = [];
    for (const i of instances) reports.push(await i.stop());
    return { reports, ids };
  }

  /** No handler began twice, none was fenced, no abandoned run was counted, each task ran once. */
  async function expectEachRanOnce(reports: InstanceReport[], ids: string[]): Promise<void> {
    const begins = reports.flatMap((r) => r.began.map((b) => b.id)).filter((id) => ids.includes(id));
    const twice = begins.filter((id, k) => begins.indexOf(id) !== k);
    expect(twice).toEqual([]);
    expect(begins.length).toBe(ids.length);
    expect(reports.map((r) => r.staleRunWrites)).toEqual(reports.map(() => 0));
    const { rows } = await shared.storage.query<{ abandoned: number; runs: number }>(
      `SELECT SUM(abandoned_count) AS abandoned, SUM(run_count) AS runs FROM tasks WHERE id = ANY($1::text[])`, [ids],
    );
    expect(rows[0]).toEqual({ abandoned: 0, runs: ids.length });
  }

  it('two instances whose clocks are 2 s ahead of and 2 s behind the database\'s: no handler begins twice, no abandoned run is counted', async () => {
    const { reports, ids } = await runOn([2000, -2000], 1000);
    await expectEachRanOnce(reports, ids);
    // Both did part of the work, and each measured its own offset.
    expect(reports.every((r) => r.began.length > 0)).toBe(true);
    expect(Math.abs(reports[0]!.clock!.offsetMs - 2000)).toBeLessThan(OFFSET_TOLERANCE_MS);
    expect(Math.abs(reports[1]!.clock!.offsetMs + 2000)).toBeLessThan(OFFSET_TOLERANCE_MS);
    expect(reports.map((r) => r.clock!.ok)).toEqual([false, false]);
  }, 120_000);

  it('a host 5 minutes ahead beside one on time: every task runs once, its stored times are the database\'s, and it says its clock is off', async () => {
    const { reports, ids } = await runOn([FIVE_MINUTES, 0], 300);
    await expectEachRanOnce(reports, ids);
    expect(reports.every((r) => r.began.length > 0)).toBe(true);
    expect(Math.abs(reports[0]!.clock!.offsetMs - FIVE_MINUTES)).toBeLessThan(OFFSET_TOLERANCE_MS);
    expect(reports[0]!.clock!.ok).toBe(false);
    expect(reports[1]!.clock).toEqual({ offsetMs: expect.any(Number), ok: true });
    expect(Math.abs(reports[1]!.clock!.offsetMs)).toBeLessThan(OFFSET_TOLERANCE_MS);
    // Starts, ends and audits written by the host ahead are on the database's clock, not 5 minutes on.
    const { rows } = await shared.storage.query<{ latest: number; db_now: number }>(
      `SELECT GREATEST(MAX(started_at), MAX(last_execution_at), (SELECT MAX(updated_at) FROM status_audit WHERE task_id = ANY($1::text[]))) AS latest,
              (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS db_now
         FROM tasks WHERE id = ANY($1::text[])`,
      [ids],
    );
    expect(rows[0]!.latest).toBeLessThanOrEqual(rows[0]!.db_now + OFFSET_TOLERANCE_MS);
  }, 120_000);

  it('a rate limit shared by instances 2 s ahead of and 2 s behind the database\'s holds: never more than its starts in any sliding window, and the host behind does not read the other\'s starts as future ones', async () => {
    const LIMIT = 4;
    const WINDOW = 1000;
    const N = 24;
    // Each instance runs 4 handlers at once (300 ms each): the limit, not the workers, paces them.
    const instances = [];
    for (const clockOffsetMs of [2000, -2000]) {
      const i = await startInstance(shared.database.connectionString, { handlerMs: 300, clockOffsetMs, rateLimit: { limit: LIMIT, windowMs: WINDOW } });
      shared.running.push(i);
      instances.push(i);
    }
    const [ahead, behind] = instances as [EngineInstance, EngineInstance];
    const d = createEngine({ store: shared.store, onError: () => undefined }).handle('Multi.Limited', () => undefined);
    const allCompleted = (ids: string[]) => waitFor(async () => {
      const { rows } = await shared.storage.query<{ n: number }>(`SELECT COUNT(*) AS n FROM tasks WHERE id = ANY($1::text[]) AND status = 'Completed'`, [ids]);
      return rows[0]!.n === ids.length;
    }, 90_000, 'every rate-limited task to complete', 50);
    const ids = await Promise.all(Array.from({ length: N }, () => d.dispatch('Multi.Limited', {})));
    await allCompleted(ids);
    // The host ahead leaves; its starts stay in the window the host behind now reads alone. Read
    // on the behind host's own clock they lie 4 s in its future: were they compared with it, the
    // next start would wait about 4 s more than the window.
    const aheadReport = await ahead.stop();
    const LATER = 8;
    const dispatchedAt = Date.now();
    const later = await Promise.all(Array.from({ length: LATER }, () => d.dispatch('Multi.Limited', {})));
    await allCompleted(later);
    const behindReport = await behind.stop();
    const reports = [aheadReport, behindReport];
    await expectEachRanOnce(reports, [...ids, ...later]);
    // The handlers' begins on the host's one real clock: any LIMIT + 1 consecutive begins span a
    // window, less the time from a claim to its handler's begin (a few ms; 150 allowed here).
    const begins = reports.flatMap((r) => r.began).filter((b) => ids.includes(b.id) || later.includes(b.id)).map((b) => b.at).sort((x, y) => x - y);
    const crowded = begins.slice(LIMIT).map((last, k) => last - begins[k]!).filter((span) => span < WINDOW - 150);
    expect(crowded).toEqual([]);
    // The later tasks ran on the host behind, the first of them within a window (plus a loaded
    // machine's claim latency) of their dispatch, not 4 s on.
    const laterBegins = behindReport.began.filter((b) => later.includes(b.id)).map((b) => b.at).sort((x, y) => x - y);
    expect(laterBegins).toHaveLength(LATER);
    expect(laterBegins[0]! - dispatchedAt).toBeLessThan(WINDOW + 1500);
  }, 150_000);

  it('GET /health and the metrics of a demo on PostgreSQL whose host is 5 minutes ahead say so', async () => {
    const env = {
      NODE_OPTIONS: `${process.env['NODE_OPTIONS'] ?? ''} --import ${SHIFTED_CLOCK}`.trim(),
      SVC_TEST_CLOCK_OFFSET_MS: String(FIVE_MINUTES),
    };
    // A minute to start: the CLI runs from its sources (tsx) until it is built, slow on a loaded machine.
    const ahead = await startCli(['demo', '--port', '0', '--enable-authentication=false', '--database', shared.database.connectionString], env, 60_000);
    try {
      const health = await (await fetch(`${ahead.baseUrl}/svc-monitoring/api/health`)).json() as { status: string; clock?: { offsetMs: number; ok: boolean } };
      expect(health.status).toBe('ok');
      expect(health.clock?.ok).toBe(false);
      expect(Math.abs(health.clock!.offsetMs - FIVE_MINUTES)).toBeLessThan(OFFSET_TOLERANCE_MS);
      const samples = parseSamples(await (await fetch(`${ahead.baseUrl}/svc-monitoring/metrics`)).text());
      const offset = samples.filter((s) => s.name === 'svc_engine_clock_offset_seconds');
      expect(offset).toHaveLength(1);
      expect(Math.abs(offset[0]!.value - FIVE_MINUTES / 1000)).toBeLessThan(OFFSET_TOLERANCE_MS / 1000);
    } finally {
      ahead.child.kill('SIGTERM');
      expect(await ahead.exited).toBe(0);
    }
    // (On SQLite, one host, /health has no clock: test/server/engine/healthRoute.test.ts.)
  }, 120_000);
});
