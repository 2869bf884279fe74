import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEngine, openSqliteStorage, type AuditLevel } from '../../../server/src/index.js';
import { failureFingerprint } from '../../../server/src/storage/sqlite/functions/failureFingerprint.js';
import { waitFor } from '../../fixtures/waitFor.js';
import { seededRandom } from '../../chaos/seededRandom.js';

type Row = Record<string, number | string | null>;

const TABLES: Record<string, { sql: string; key: string[] }> = {
  stat_tasks: { sql: 'SELECT * FROM stat_tasks WHERE n <> 0', key: ['queue', 'type', 'status', 'is_recurring', 'is_occurrence'] },
  stat_created_hour: { sql: 'SELECT * FROM stat_created_hour WHERE n <> 0', key: ['hour', 'type', 'status'] },
  stat_created_day: { sql: 'SELECT * FROM stat_created_day WHERE n <> 0', key: ['day', 'type', 'status'] },
  stat_runs_hour: { sql: 'SELECT * FROM stat_runs_hour WHERE completed + failed > 0', key: ['bucket', 'type', 'queue'] },
  stat_runs_day: { sql: 'SELECT * FROM stat_runs_day WHERE completed + failed > 0', key: ['bucket', 'type', 'queue'] },
  // sample_task_id is left out: the rebuild names any failed task of the group.
  failure_groups_hour: { sql: 'SELECT bucket, type, fingerprint, n, first_seen, last_seen FROM failure_groups_hour', key: ['bucket', 'type', 'fingerprint'] },
  failure_groups_day: { sql: 'SELECT bucket, type, fingerprint, n, first_seen, last_seen FROM failure_groups_day', key: ['bucket', 'type', 'fingerprint'] },
};

function snapshot(db: import('better-sqlite3').Database): Record<string, Map<string, Row>> {
  const out: Record<string, Map<string, Row>> = {};
  for (const [name, t] of Object.entries(TABLES)) {
    const m = new Map<string, Row>();
    for (const r of db.prepare(t.sql).all() as Row[]) m.set(t.key.map((k) => String(r[k])).join('|'), r);
    out[name] = m;
  }
  return out;
}

interface EarlierRun {
  ended: number;
  type: string;
  queue: string;
  exception: string | null;
}

/** Adds failed runs that the task table no longer shows to a snapshot of the rebuilt read models. */
function addEarlierFailedRuns(snap: Record<string, Map<string, Row>>, runs: readonly EarlierRun[]): void {
  for (const r of runs) {
    for (const [table, size] of [['stat_runs_hour', 3_600_000], ['stat_runs_day', 86_400_000]] as const) {
      const bucket = Math.trunc(r.ended / size);
      const key = `${bucket}|${r.type}|${r.queue}`;
      const row = snap[table]!.get(key) ?? { bucket, type: r.type, queue: r.queue, completed: 0, failed: 0, dur_sum: 0, dur_count: 0, dur_min: null, dur_max: null };
      row['failed'] = (row['failed'] as number) + 1;
      snap[table]!.set(key, row);
    }
    for (const [table, size] of [['failure_groups_hour', 3_600_000], ['failure_groups_day', 86_400_000]] as const) {
      const bucket = Math.trunc(r.ended / size);
      const fingerprint = failureFingerprint(r.exception);
      const key = `${bucket}|${r.type}|${fingerprint}`;
      const row = snap[table]!.get(key) ?? { bucket, type: r.type, fingerprint, n: 0, first_seen: r.ended, last_seen: r.ended };
      row['n'] = (row['n'] as number) + 1;
      row['first_seen'] = Math.min(row['first_seen'] as number, r.ended);
      row['last_seen'] = Math.max(row['last_seen'] as number, r.ended);
      snap[table]!.set(key, row);
    }
  }
}

describe('read models', () => {
  it('after a random workload through every writer, every read model equals its recomputation from the task table', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-readmodels-'));
    const storage = openSqliteStorage({ file: join(dir, 'tasks.db') });
    try {
      const random = seededRandom(20261123).next;
      const engine = createEngine({
        storage,
        pollIntervalMs: 10,
        queues: { default: { concurrency: 4 }, small: { concurrency: 1, capacity: 3 }, bulk: { concurrency: 3 } },
      });
      const types = ['Billing.Invoice', 'Mail.Send', 'Reports.Build', 'Ops.Flaky'];
      for (const t of types) {
        engine.handle(t, async (req: { fail: boolean; ms: number }) => {
          if (req.ms > 0) await new Promise((r) => setTimeout(r, req.ms));
          if (req.fail) throw new Error(`${t} failed`);
        }, t === 'Ops.Flaky' ? { retry: { attempts: 2, backoffMs: 1, backoff: 'fixed' } } : {});
      }
      engine.handle('Rec.Tick', (_r, ctx) => {
        if (ctx.runNumber % 3 === 0) throw new Error('every third run fails');
      });
      await engine.start();
      const queues = ['default', 'small', 'bulk'];
      const levels: AuditLevel[] = ['Full', 'ErrorsOnly', 'None'];
      const ids: string[] = [];
      for (let i = 0; i < 300; i++) {
        const type = types[Math.floor(random() * types.length)]!;
        const opts = {
          queue: queues[Math.floor(random() * queues.length)]!,
          auditLevel: levels[Math.floor(random() * levels.length)]!,
          ...(random() < 0.1 ? { delayMs: Math.floor(random() * 80) } : {}),
          ...(random() < 0.05 ? { delayMs: 3_600_000 } : {}),
        };
        ids.push(await engine.dispatch(type, { fail: random() < 0.25, ms: random() < 0.2 ? 3 : 0 }, opts));
        if (random() < 0.05) await engine.cancel(ids[Math.floor(random() * ids.length)]!);
      }
      const rec = [
        await engine.recurring('Rec.Tick', {}, { every: 15, maxRuns: 5 }),
        await engine.recurring('Rec.Tick', {}, { every: 25, maxRuns: 4, queue: 'bulk' }),
      ];
      // Task keys: a Pending keyed row's request replaced, once in a later commit and once in the same one.
      await engine.dispatch('Mail.Send', { fail: false, ms: 0, note: 'first' }, { taskKey: 'rm-key-a', delayMs: 3_600_000 });
      await engine.dispatch('Mail.Send', { fail: false, ms: 0, note: 'replaced' }, { taskKey: 'rm-key-a', delayMs: 3_600_000 });
      await Promise.all([
        engine.dispatch('Mail.Send', { fail: false, ms: 0, note: 'early' }, { taskKey: 'rm-key-b', delayMs: 3_600_000 }),
        engine.dispatch('Mail.Send', { fail: false, ms: 0, note: 'late' }, { taskKey: 'rm-key-b', delayMs: 3_600_000 }),
      ]);
      // Durable schedules: created, run to completion, failing occurrences requeued, a definition changed, one cancelled.
      const done = await engine.schedules.upsert({ key: 'rm-done', type: 'Mail.Send', request: { fail: false, ms: 0 }, every: '1s', maxRuns: 2 });
      const failing = await engine.schedules.upsert({
        key: 'rm-fail', type: 'Billing.Invoice', request: { fail: true, ms: 0 }, every: '1s', maxRuns: 2, queue: 'bulk',
      });
      await engine.schedules.upsert({ key: 'rm-moved', type: 'Reports.Build', request: { fail: false, ms: 0 }, every: '1h' });
      await engine.schedules.upsert({ key: 'rm-moved', type: 'Ops.Flaky', request: { fail: false, ms: 0 }, every: '2h', queue: 'small' });
      expect((await engine.schedules.cancel('rm-moved')).status).toBe('Succeeded');

      const db = storage.db;
      const statusOf = (id: string) => db.prepare('SELECT status FROM tasks WHERE id = ?').pluck().get(id) as string;
      const open = () =>
        db.prepare(`SELECT COUNT(*) FROM tasks WHERE status IN ('Queued', 'WaitingQueue', 'InProgress')
          OR (status = 'Pending' AND scheduled_at < ? AND NOT (occurrence_mode IS 'Durable' AND parent_task_id IS NULL))`).pluck().get(Date.now() + 60_000) as number;
      const settled = () => open() === 0 && [...rec, done, failing].every((id) => statusOf(id) === 'Completed');
      await waitFor(settled, 20_000, 'workload');

      // Management: retry one by one, then bulk retry, bulk cancel and bulk requeue.
      const failed = db.prepare(`SELECT id FROM tasks WHERE status = 'Failed' AND parent_task_id IS NULL AND is_recurring = 0 ORDER BY id`).pluck().all() as string[];
      expect(failed.length).toBeGreaterThan(10);
      for (const id of failed.slice(0, 5)) expect((await engine.tasks.retry(id, 'tester')).status).toBe('Succeeded');
      const failedOccurrences = db.prepare(`SELECT id FROM tasks WHERE status = 'Failed' AND parent_task_id = ?`).pluck().all(failing) as string[];
      expect(failedOccurrences.length).toBe(2);
      expect((await engine.schedules.requeue(failedOccurrences[0]!)).status).toBe('Succeeded');
      // A row run again keeps only its last run in the task table: the rebuild cannot see the first one.
      const earlierRuns = [...failed.slice(0, 12), ...failedOccurrences].map((id) =>
        db.prepare(`SELECT last_execution_at AS ended, type, queue, exception FROM tasks WHERE id = ?`).get(id) as EarlierRun);
      const pendingLater = db.prepare(`SELECT id FROM tasks WHERE status = 'Pending' AND parent_task_id IS NULL AND is_recurring = 0 ORDER BY id`).pluck().all() as string[];
      engine.tasks.startBulk({ action: 'retry', ids: failed.slice(5, 12), actor: 'tester' });
      engine.tasks.startBulk({ action: 'cancel', ids: pendingLater.slice(0, Math.ceil(pendingLater.length / 2)), actor: 'tester' });
      engine.tasks.startBulk({ action: 'requeue', ids: failedOccurrences.slice(1), statuses: ['Failed'], actor: 'tester' });
      await engine.tasks.bulkIdle();
      await waitFor(settled, 20_000, 'the retried and requeued tasks');
      await engine.stop();

      // The argument index holds every row once, with its current request text.
      expect(db.prepare('SELECT COUNT(*) FROM task_search_rows').pluck().get()).toBe(db.prepare('SELECT COUNT(*) FROM tasks').pluck().get());
      const search = (term: string) =>
        db.prepare(`SELECT COUNT(*) FROM task_request_fts WHERE task_request_fts MATCH ?`).pluck().get(`"${term}"`) as number;
      expect(search('fail')).toBe(db.prepare(`SELECT COUNT(*) FROM tasks WHERE request LIKE '%"fail"%'`).pluck().get());
      expect([search('first'), search('replaced'), search('early'), search('late')]).toEqual([0, 1, 0, 1]);
      // Each search row carries its task's current group columns and status (a changed schedule definition
      // moved rm-moved to another type and queue), and the key index holds every key once.
      expect(db.prepare(`SELECT COUNT(*) FROM task_search_rows s JOIN tasks t ON t.id = s.task_id
        WHERE s.created_at = t.created_at AND s.queue = t.queue AND s.type = t.type AND s.is_recurring = t.is_recurring
          AND s.is_occurrence = (t.parent_task_id IS NOT NULL) AND s.status = t.status`).pluck().get()).toBe(db.prepare('SELECT COUNT(*) FROM tasks').pluck().get());
      const keyed = (term: string) =>
        db.prepare(`SELECT t.id FROM task_key_fts k JOIN task_search_rows s ON s.id = k.rowid JOIN tasks t ON t.id = s.task_id
          WHERE task_key_fts MATCH ? ORDER BY 1`).pluck().all(`"${term}"`);
      for (const term of ['rm-', 'key-b', 'MOVED', 'rm-fail']) {
        expect(keyed(term), term).toEqual(db.prepare(`SELECT id FROM tasks WHERE instr(lower(task_key), lower(?)) > 0 ORDER BY 1`).pluck().all(term));
      }
      expect(keyed('rm-').length).toBeGreaterThanOrEqual(5);
      // The (type, handler) list names exactly the pairs present.
      expect(db.prepare('SELECT type, handler FROM monitor_type_handlers ORDER BY 1, 2').all()).toEqual(
        db.prepare('SELECT DISTINCT type, handler FROM tasks ORDER BY 1, 2').all(),
      );
      const statuses = storage.db.prepare('SELECT status, COUNT(*) AS n FROM tasks GROUP BY status').all() as { status: string; n: number }[];
      const byStatus = Object.fromEntries(statuses.map((s) => [s.status, s.n]));
      expect(byStatus['Completed']).toBeGreaterThan(50);
      expect(byStatus['Failed']).toBeGreaterThan(10);
      expect(byStatus['Pending']).toBeGreaterThan(0);
      const live = snapshot(storage.db);
      expect(live['stat_runs_hour']!.size).toBeGreaterThan(0);
      storage.rebuildReadModels();
      const rebuilt = snapshot(storage.db);
      addEarlierFailedRuns(rebuilt, earlierRuns);
      for (const name of Object.keys(TABLES)) {
        const a = live[name]!;
        const b = rebuilt[name]!;
        expect([...a.keys()].sort(), name).toEqual([...b.keys()].sort());
        for (const [k, row] of a) {
          const other = b.get(k)!;
          for (const [col, v] of Object.entries(row)) {
            // Sums of fractional durations differ in their last bits with the order they are added in.
            const fractional = typeof v === 'number' && (!Number.isInteger(v) || (typeof other[col] === 'number' && !Number.isInteger(other[col])));
            if (fractional) expect(other[col], `${name} ${k} ${col}`).toBeCloseTo(v as number, 6);
            else expect(other[col], `${name} ${k} ${col}`).toEqual(v);
          }
        }
      }
    } finally {
      storage.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
