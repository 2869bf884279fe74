import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEngine, openSqliteStorage, type AuditLevel } from '../../../server/src/index.js';
import { waitFor } from '../engine/helpers.js';

/** Deterministic PRNG (mulberry32) so a failure can be replayed. */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Row = Record<string, number | string | null>;

const TABLES: Record<string, { sql: string; key: string[] }> = {
  stat_tasks: { sql: 'SELECT * FROM stat_tasks WHERE n <> 0', key: ['queue', 'type', 'status', 'is_recurring', 'is_occurrence'] },
  stat_created_hour: { sql: 'SELECT * FROM stat_created_hour WHERE n <> 0', key: ['hour', 'type', 'status'] },
  stat_created_day: { sql: 'SELECT * FROM stat_created_day WHERE n <> 0', key: ['day', 'type', 'status'] },
  stat_runs_hour: { sql: 'SELECT * FROM stat_runs_hour WHERE completed + failed > 0', key: ['bucket', 'type', 'queue'] },
  stat_runs_day: { sql: 'SELECT * FROM stat_runs_day WHERE completed + failed > 0', key: ['bucket', 'type', 'queue'] },
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

describe('read models', () => {
  it('after a random workload, every stat_* table equals its recomputation by rebuildReadModels', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-readmodels-'));
    const storage = openSqliteStorage({ file: join(dir, 'tasks.db') });
    try {
      const random = rng(20261123);
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
      const open = () =>
        storage.db.prepare(`SELECT COUNT(*) FROM tasks WHERE status IN ('Queued', 'WaitingQueue', 'InProgress')
          OR (status = 'Pending' AND scheduled_at < ?)`).pluck().get(Date.now() + 60_000) as number;
      await waitFor(() => open() === 0 && rec.every((id) => storage.db.prepare('SELECT status FROM tasks WHERE id = ?').pluck().get(id) === 'Completed'), 20_000, 'workload');
      await engine.stop();

      const statuses = storage.db.prepare('SELECT status, COUNT(*) AS n FROM tasks GROUP BY status').all() as { status: string; n: number }[];
      const byStatus = Object.fromEntries(statuses.map((s) => [s.status, s.n]));
      expect(byStatus['Completed']).toBeGreaterThan(50);
      expect(byStatus['Failed']).toBeGreaterThan(10);
      expect(byStatus['Pending']).toBeGreaterThan(0);
      const live = snapshot(storage.db);
      expect(live['stat_runs_hour']!.size).toBeGreaterThan(0);
      storage.rebuildReadModels();
      const rebuilt = snapshot(storage.db);
      for (const name of Object.keys(TABLES)) {
        const a = live[name]!;
        const b = rebuilt[name]!;
        expect([...a.keys()].sort(), name).toEqual([...b.keys()].sort());
        for (const [k, row] of a) {
          const other = b.get(k)!;
          for (const [col, v] of Object.entries(row)) {
            if (typeof v === 'number' && !Number.isInteger(v)) expect(other[col], `${name} ${k} ${col}`).toBeCloseTo(v, 6);
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
