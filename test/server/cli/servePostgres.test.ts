import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStorage } from '../../../server/src/storage/postgres/openPostgresStorage.js';
import { closedPort } from '../../fixtures/server/fakePostgresServer.js';
import { createTestDatabase, type TestDatabase } from '../../fixtures/server/postgresDatabase.js';
import { runCli, startCli } from '../../fixtures/server/cliProcess.js';

describe('svc-monitor-server serve --database postgres://…', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('svc_cli');
    const storage = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 1 });
    await storage.query(
      `INSERT INTO tasks (id, type, handler, request, queue, status, audit_level, created_at)
       SELECT gen_random_uuid()::text, 'Cli.Pg.Job', 'Cli.Pg.JobHandler', '{}', 'default', CASE WHEN i % 4 = 0 THEN 'Failed' ELSE 'Completed' END, 'Full', $1
         FROM generate_series(1, 12) AS i`,
      [Date.now()],
    );
    await storage.close();
  });
  afterAll(async () => {
    await database.drop();
  });

  it('serves the store named by SVC_MONITOR_DATABASE (counts from its read models, live hub)', async () => {
    const cli = await startCli(['serve', '--port', '0', '--enable-authentication=false'], { SVC_MONITOR_DATABASE: database.connectionString });
    try {
      expect(cli.output()).toMatch(/over PostgreSQL 127\.0\.0\.1:5432\/svc_cli_/);
      const counts = await (await fetch(`${cli.baseUrl}/svc-monitoring/api/tasks/counts`)).json();
      expect(counts).toMatchObject({ all: 12, failed: 3 });
      const negotiate = await fetch(`${cli.baseUrl}/svc-monitoring/hub/negotiate?negotiateVersion=1`, { method: 'POST' });
      expect(negotiate.status).toBe(200);
    } finally {
      cli.child.kill('SIGTERM');
      expect(await cli.exited).toBe(0);
    }
  });

  // One CLI run per case: each starts a node process, and on a loaded machine three in one test
  // added up to the test's time limit.
  it.each([
    ['a closed port', async () => {
      const port = await closedPort();
      return { argv: ['serve', '--database', `postgres://postgres@127.0.0.1:${port}/x`], message: new RegExp(`--database: PostgreSQL at 127\\.0\\.0\\.1:${port} is unreachable: connection refused`) };
    }],
    ['a malformed URL', async () => ({ argv: ['serve', '--database', 'postgres//nohost'], message: /--database: option "connectionString" is not a valid URL/ })],
    ['both --database and --db', async () => ({ argv: ['serve', '--database', database.connectionString, '--db', 'x.db'], message: /either --db <file> \(SQLite\) or --database/ })],
  ] as const)('bad --database values, %s → exit 2 naming the host and the cause', async (_case, given) => {
    const { argv, message } = await given();
    const r = await runCli(argv);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });
});
