import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStorage } from '../../../server/src/storage/postgres/openPostgresStorage.js';
import { createTestDatabase, type TestDatabase } from '../../fixtures/server/postgresDatabase.js';
import { startCli } from '../../fixtures/server/cliProcess.js';

describe('svc-monitor-server demo --database postgres://… (two instances on one store)', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('svc_demo');
  });
  afterAll(async () => {
    await database.drop();
  });

  it('both demos run on the shared store as two instances; each dashboard counts the work of both', async () => {
    const a = await startCli(['demo', '--port', '0', '--enable-authentication=false', '--database', database.connectionString]);
    const b = await startCli(['demo', '--port', '0', '--enable-authentication=false'], { SVC_MONITOR_DATABASE: database.connectionString });
    try {
      expect(a.output()).toMatch(/Database:\s+PostgreSQL 127\.0\.0\.1:5432\/svc_demo_\S+ \(schema svc_monitor, instance [0-9a-f-]{36}\)/);
      const storage = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 1, rollupIntervalMs: 0 });
      try {
        const deadline = Date.now() + 30_000;
        let finished = 0;
        for (;;) {
          const live = (await storage.query<{ n: number }>(`SELECT COUNT(*) AS n FROM engine_instances`)).rows[0]!.n;
          finished = (await storage.query<{ n: number }>(`SELECT COUNT(*) AS n FROM tasks WHERE status IN ('Completed', 'Failed')`)).rows[0]!.n;
          if (live === 2 && finished > 4) break;
          if (Date.now() > deadline) throw new Error('the two demos did not both run work on the store');
          await new Promise((r) => setTimeout(r, 250));
        }
        // Both dashboards read the one store: each counts at least the work finished so far.
        for (const cli of [a, b]) {
          const counts = await (await fetch(`${cli.baseUrl}/svc-monitoring/api/tasks/counts`)).json();
          expect(counts.all).toBeGreaterThanOrEqual(finished);
        }
      } finally {
        await storage.close();
      }
    } finally {
      a.child.kill('SIGTERM');
      b.child.kill('SIGTERM');
      expect(await a.exited).toBe(0);
      expect(await b.exited).toBe(0);
    }
  }, 90_000);
});
