// @backends sqlite deferred — BEGIN EXCLUSIVE from another process, disk full through max_page_count, the deleted file: SQLite itself.
import { unlinkSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, harness } from '../../fixtures/server/engineHarness.js';
import { waitFor } from '../../fixtures/waitFor.js';

afterEach(closeAll);

/** The largest gap between ticks of a 5 ms interval while `during` runs: how long the event loop froze. */
async function maxEventLoopGap<T>(during: () => Promise<T>): Promise<{ result: T; maxGapMs: number }> {
  let last = performance.now();
  let maxGapMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    maxGapMs = Math.max(maxGapMs, now - last);
    last = now;
  }, 5);
  try {
    const result = await during();
    return { result, maxGapMs };
  } finally {
    clearInterval(timer);
  }
}

describe('storage trouble: never stall, never drop', () => {
  it('a lock held by another process: the event loop keeps turning, finished runs and logs wait in memory, then all are written once', async () => {
    const h = harness();
    const errors: Error[] = [];
    h.engine.on('error', (e) => errors.push(e));
    h.engine.handle('Lock.Job', (req: { n: number }, ctx) => {
      ctx.log.info(`job ${req.n}`);
    });
    await h.engine.start();
    const first = await h.engine.dispatch('Lock.Job', { n: 0 });
    await waitFor(async () => (await h.status(first)) === 'Completed');

    const other = new BetterSqlite3(h.file);
    other.exec('BEGIN EXCLUSIVE');
    const { result: ids, maxGapMs } = await maxEventLoopGap(async () => {
      const pending = Array.from({ length: 20 }, (_, n) => h.engine.dispatch('Lock.Job', { n: n + 1 }));
      await waitFor(async () => h.engine.health().status === 'degraded', 3000, 'degraded health');
      expect(h.engine.health().unwrittenChanges).toBeGreaterThan(0);
      await new Promise((r) => setTimeout(r, 300));
      other.exec('COMMIT');
      return Promise.all(pending);
    });
    other.close();
    expect(maxGapMs).toBeLessThan(1000); // a synchronous 5 s busy wait would freeze it for seconds
    expect(errors.some((e) => /lock/.test(e.message))).toBe(true);
    await waitFor(async () => (await h.statuses(ids)).every((s) => s === 'Completed'), 10_000, 'every task Completed');
    for (const id of ids) {
      expect((await h.audits(id))).toEqual(['Queued', 'InProgress', 'Completed']);
      expect(h.storage.db.prepare('SELECT COUNT(*) FROM execution_logs WHERE task_id = ?').pluck().get(id)).toBe(1);
    }
    // A trailing commit may still be in flight when the rows read Completed: wait until it settles.
    await waitFor(async () => {
      const now = h.engine.health();
      return now.status === 'ok' && now.unwrittenChanges === 0 && now.oldestUnwrittenMs === 0;
    }, 3000, 'settled health');
    expect(h.engine.health()).toEqual({ status: 'ok', unwrittenChanges: 0, oldestUnwrittenMs: 0, staleRunWrites: 0 });
  });

  it('a full disk (max_page_count): an error event, nothing lost, resumes when space returns', async () => {
    const h = harness();
    const errors: Error[] = [];
    h.engine.on('error', (e) => errors.push(e));
    h.engine.handle('Full.Job', (_req, ctx) => ctx.log.info('x'.repeat(2000)));
    await h.engine.start();
    const db = h.storage.db;
    const pages = db.pragma('page_count', { simple: true }) as number;
    db.pragma(`max_page_count = ${pages + 2}`);
    const ids = await Promise.race([
      Promise.all(Array.from({ length: 200 }, (_, n) => h.engine.dispatch('Full.Job', { n, pad: 'p'.repeat(500) }))),
      waitFor(async () => errors.length > 0, 5000, 'an error event').then(() => null),
    ]);
    expect(errors[0]!.message).toMatch(/disk is full/);
    expect(h.engine.health().status).toBe('degraded');
    db.pragma('max_page_count = 1073741823');
    const all = ids ?? (await waitFor(async () => h.engine.health().unwrittenChanges === 0, 10_000, 'writes resumed'), null);
    void all;
    const count = () => db.prepare(`SELECT COUNT(*) FROM tasks WHERE type = 'Full.Job' AND status = 'Completed'`).pluck().get() as number;
    await waitFor(async () => count() === 200, 15_000, 'all 200 Completed');
    expect(db.prepare(`SELECT COUNT(*) FROM execution_logs`).pluck().get()).toBe(200);
  });

  it('a database file deleted under the engine: an error naming the file within a poll interval, no more claims or writes', async () => {
    const h = harness({ pollIntervalMs: 30 });
    const errors: Error[] = [];
    h.engine.on('error', (e) => errors.push(e));
    h.engine.handle('Gone.Job', () => undefined);
    await h.engine.start();
    const before = await h.engine.dispatch('Gone.Job', {});
    await waitFor(async () => (await h.status(before)) === 'Completed');
    for (const suffix of ['', '-wal', '-shm']) {
      try {
        unlinkSync(h.file + suffix);
      } catch {
        /* not there */
      }
    }
    const t0 = Date.now();
    await waitFor(async () => errors.length > 0, 2000, 'the error event');
    expect(Date.now() - t0).toBeLessThan(500);
    expect(errors[0]!.message).toContain(h.file);
    expect(errors[0]!.message).toMatch(/deleted/);
    expect(h.engine.health()).toMatchObject({ status: 'failed' });
    let outcome: string | undefined;
    const dispatched = h.engine.dispatch('Gone.Job', {}).then(
      () => (outcome = 'written'),
      (e: Error) => (outcome = e.message),
    );
    await waitFor(async () => h.engine.health().unwrittenChanges === 1, 1000, 'the dispatch kept in memory');
    expect(outcome).toBeUndefined();
    // Stopping does not pretend it was written: the caller's dispatch is refused, once the time
    // the caller gives stop() to write it has run out (5 s when not given).
    const stopAt = Date.now();
    await h.engine.stop({ graceMs: 0, writeTimeoutMs: 300 });
    expect(Date.now() - stopAt).toBeGreaterThanOrEqual(300);
    expect(Date.now() - stopAt).toBeLessThan(4000);
    await dispatched;
    expect(outcome).toBe('The engine stopped before the change could be written');
  });
});
