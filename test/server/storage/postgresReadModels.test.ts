import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStorage } from '../../../server/src/storage/postgres/openPostgresStorage.js';
import type { PostgresStorage } from '../../../server/src/storage/postgres/PostgresStorage.js';
import { createTestDatabase, type TestDatabase } from '../../fixtures/server/postgresDatabase.js';
import { snapshotReadModels } from '../../fixtures/server/postgresReadModelSnapshot.js';
import { seededRandom } from '../../chaos/seededRandom.js';

describe('PostgreSQL read models without a hot row', () => {
  let database: TestDatabase;
  let storages: PostgresStorage[] = [];
  beforeAll(async () => {
    database = await createTestDatabase('svc_rm');
    // Four "instances" on one database, each rolling up deltas every 20 ms while the others write.
    storages = await Promise.all(
      [0, 1, 2, 3].map(() => openPostgresStorage({ connectionString: database.connectionString, poolSize: 3, rollupIntervalMs: 20 })),
    );
  });
  afterAll(async () => {
    for (const s of storages) await s.close();
    await database.drop();
  });

  it('concurrent writers append deltas (no shared counter row); the sums equal a recomputation', async () => {
    const types = ['Billing.Invoice', 'Mail.Send', 'Reports.Build'];
    const queues = ['default', 'mail', 'bulk'];
    const hour = 3_600_000;
    const base = Date.now() - 3 * 24 * hour;
    await Promise.all(
      storages.map(async (s, w) => {
        const random = seededRandom(1000 + w).next;
        const pick = <T,>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
        for (let round = 0; round < 30; round++) {
          // A batch insert, then batch transitions as an engine would write them.
          const ids = Array.from({ length: 20 }, () => randomUUID());
          await s.query(
            `INSERT INTO tasks (id, type, handler, request, queue, status, audit_level, created_at, is_recurring)
             SELECT id, t, t || 'Handler', '{}', q, 'Queued', 'Full', c, 0
               FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) AS x(id, t, q, c)`,
            [ids, ids.map(() => pick(types)), ids.map(() => pick(queues)), ids.map(() => base + Math.floor(random() * 72 * hour))],
          );
          const started = ids.filter(() => random() < 0.8);
          await s.query(`UPDATE tasks SET status = 'InProgress', started_at = created_at + 10 WHERE id = ANY($1::text[])`, [started]);
          const finished = started.filter(() => random() < 0.8);
          await s.transaction(async (c) => {
            for (const id of finished) {
              const ok = random() < 0.7;
              await c.query(
                `UPDATE tasks SET status = $2, last_outcome = $2, run_count = run_count + 1, last_execution_at = created_at + 500,
                        execution_time_ms = $3, exception = $4 WHERE id = $1`,
                [id, ok ? 'Completed' : 'Failed', ok ? Math.round(random() * 1000) / 10 : 0, ok ? null : pick(['Error: order 4711 rejected', 'TimeoutError: 30000 ms', 'Error: "x" missing'])],
              );
            }
          });
          const moved = ids.filter((id) => !started.includes(id) && random() < 0.5);
          await s.query(`UPDATE tasks SET queue = 'moved' WHERE id = ANY($1::text[])`, [moved]);
          // Finished runs stay in the run buckets after a delete (as on SQLite): delete only rows that never ran.
          if (round % 5 === 0 && moved.length > 0) await s.query(`DELETE FROM tasks WHERE id = $1`, [moved[0]]);
        }
      }),
    );
    const live = await snapshotReadModels(storages[0]!);
    const { rows } = await storages[0]!.query<{ n: number }>(`SELECT COUNT(*) AS n FROM tasks`);
    expect(live.stat_tasks!.reduce((sum, r) => sum + Number(r.n), 0)).toBe(rows[0]!.n);
    await storages[0]!.rebuildReadModels();
    const rebuilt = await snapshotReadModels(storages[0]!);
    expect(live).toEqual(rebuilt);
    expect(live.stat_runs_day!.length).toBeGreaterThan(0);
    expect(live.failure_groups_day!.length).toBeGreaterThan(2);
    // The roll-up folds deltas into the rolled-up tables and changes no answer.
    await storages[1]!.query(`UPDATE tasks SET status = 'Cancelled' WHERE status = 'Queued'`);
    const before = await snapshotReadModels(storages[1]!);
    while (!(await storages[2]!.rollupReadModels())) await new Promise((r) => setTimeout(r, 5));
    expect((await storages[2]!.query<{ n: number }>(`SELECT COUNT(*) AS n FROM stat_tasks_delta`)).rows[0]!.n).toBe(0);
    expect(await snapshotReadModels(storages[3]!)).toEqual(before);
  });
});
