import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresEngineStore } from '../../../server/src/storage/postgres/createPostgresEngineStore.js';
import { migratePostgres } from '../../../server/src/storage/postgres/migrate.js';
import { openPostgresStorage } from '../../../server/src/storage/postgres/openPostgresStorage.js';
import type { PostgresStorage } from '../../../server/src/storage/postgres/PostgresStorage.js';
import { pgMigrations } from '../../../server/src/storage/postgres/migrations/index.js';
import { closedPort, passwordRefusingServer } from '../../fixtures/server/fakePostgresServer.js';
import { createTestDatabase, type TestDatabase } from '../../fixtures/server/postgresDatabase.js';

describe('openPostgresStorage: schema, migrations, errors at open', () => {
  let database: TestDatabase;
  const opened: PostgresStorage[] = [];
  beforeAll(async () => {
    database = await createTestDatabase('svc_open');
  });
  afterAll(async () => {
    for (const s of opened) await s.close();
    await database.drop();
  });

  it('two instances opening at once migrate once (advisory lock); the schema holds the tables', async () => {
    const [a, b] = await Promise.all([
      openPostgresStorage({ connectionString: database.connectionString, schema: 'race', poolSize: 2 }),
      openPostgresStorage({ connectionString: database.connectionString, schema: 'race', poolSize: 2 }),
    ]);
    opened.push(a, b);
    const all = pgMigrations.map((m) => m.version);
    // One of them applied every migration, the other found nothing left to do.
    expect([a.appliedMigrations, b.appliedMigrations].sort((x, y) => y.length - x.length)).toEqual([all, []]);
    const { rows } = await a.query<{ version: number }>(`SELECT version FROM race.schema_migrations ORDER BY version`);
    expect(rows.map((r) => r.version)).toEqual(all);
    const tables = await a.query<{ n: number }>(
      `SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema = 'race' AND table_name IN ('tasks', 'status_audit', 'stat_tasks', 'engine_instances')`,
    );
    expect(tables.rows[0]!.n).toBe(4);
    // Triggers and index expressions do not depend on the writer's search_path (psql, other tools).
    await a.transaction(async (c) => {
      await c.query(`SET LOCAL search_path TO public`);
      await c.query(`INSERT INTO race.tasks (id, type, handler, request, queue, status, audit_level, created_at) VALUES ('x1', 'T', 'H', '{"a":1}', 'q', 'Queued', 'Full', 1)`);
      await c.query(`UPDATE race.tasks SET status = 'Completed', run_count = 1, last_outcome = 'Completed', last_execution_at = 2 WHERE id = 'x1'`);
    });
    expect((await a.query<{ n: number }>(`SELECT SUM(n) AS n FROM race.stat_tasks_v WHERE status = 'Completed'`)).rows[0]!.n).toBe(1);
    // A third open later applies nothing.
    const c = await openPostgresStorage({ connectionString: database.connectionString, schema: 'race', poolSize: 1 });
    opened.push(c);
    expect(c.appliedMigrations).toEqual([]);
  });

  it('a checked-out connection that the server ends between two statements fails its next statement, and the process lives on', async () => {
    const storage = await openPostgresStorage({ connectionString: database.connectionString, schema: 'race', poolSize: 2 });
    opened.push(storage);
    const client = await storage.pool.connect();
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const unheard: unknown[] = [];
    const onUncaught = (err: unknown) => unheard.push(err);
    process.on('uncaughtException', onUncaught);
    try {
      await storage.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      // The server's goodbye reaches the idle, checked-out connection as an 'error' event.
      await expect.poll(() => storage.lastConnectionError?.message ?? '', { timeout: 5_000 }).toMatch(/terminat/);
      await expect(client.query('SELECT 1')).rejects.toThrow();
      expect(unheard).toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
      client.release(true);
    }
    expect((await storage.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one).toBe(1);
  });

  it('a migration missing below the highest applied one is applied (two branches merged in the other order), the rest are not run again', async () => {
    const pool = new pg.Pool({ connectionString: database.connectionString, max: 1 });
    const client = await pool.connect();
    try {
      const skipped = pgMigrations[pgMigrations.length - 2]!;
      expect(await migratePostgres(client, 'gap', pgMigrations.filter((m) => m.version !== skipped.version))).toEqual(
        pgMigrations.filter((m) => m !== skipped).map((m) => m.version),
      );
      expect(await migratePostgres(client, 'gap')).toEqual([skipped.version]);
      const { rows } = await client.query<{ version: number }>(`SELECT version FROM gap.schema_migrations ORDER BY version`);
      expect(rows.map((r) => r.version)).toEqual(pgMigrations.map((m) => m.version));
      expect(await migratePostgres(client, 'gap')).toEqual([]);
    } finally {
      client.release();
      await pool.end();
    }
  });

  it('a store migrating while another schema of the same database is still installing the shared extension waits for it instead of failing', async () => {
    const fresh = await createTestDatabase('svc_open_schemas');
    const pool = new pg.Pool({ connectionString: fresh.connectionString, max: 2 });
    // A connection lost here fails the next statement of the test instead of an uncaught event.
    pool.on('error', () => undefined);
    const held = await pool.connect();
    held.on('error', () => undefined);
    let other: PostgresStorage | undefined;
    try {
      // Schema "held" stops in the middle of the migration that installs pg_trgm (database-wide).
      const trigram = pgMigrations.find((m) => /pg_trgm/.test(m.sql))!;
      await migratePostgres(held, 'held', pgMigrations.filter((m) => m.version < trigram.version));
      await held.query('BEGIN');
      await held.query(trigram.sql);
      const opening = openPostgresStorage({ connectionString: fresh.connectionString, schema: 'other', poolSize: 1 });
      opening.catch(() => undefined);
      // The other store's migration reaches the extension and waits on a lock the held one owns.
      // (Only locks of this database: other test files run beside this one on the same server.)
      const waiting = async () => (await pool.query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM pg_locks
        WHERE NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`)).rows[0]!.n > 0;
      const deadline = Date.now() + 20_000;
      while (!(await waiting())) {
        if (Date.now() > deadline) throw new Error('the other store never waited for the held migration');
        await new Promise((r) => setTimeout(r, 20));
      }
      await held.query('COMMIT');
      other = await opening;
      expect(other.appliedMigrations).toEqual(pgMigrations.map((m) => m.version));
    } finally {
      held.release();
      await pool.end();
      await other?.close();
      await fresh.drop();
    }
  });

  it('a migrating connection that the server terminates fails the open with the cause, without an unhandled error', async () => {
    const fresh = await createTestDatabase('svc_open_killed');
    const admin = new pg.Client({ connectionString: fresh.connectionString });
    // pg_stat_activity is read once per transaction: the watcher polls outside the lock holder's.
    const watcher = new pg.Client({ connectionString: fresh.connectionString });
    await admin.connect();
    await watcher.connect();
    try {
      // Hold the extension's lock so that the store's migration waits, then end its connection.
      await admin.query('BEGIN');
      await admin.query(`SELECT pg_advisory_xact_lock(hashtext('svc_monitor.extension:pg_trgm'))`);
      const outcome = openPostgresStorage({ connectionString: fresh.connectionString, schema: 'killed', poolSize: 1 }).then(
        (s) => s,
        (err: Error) => err,
      );
      const deadline = Date.now() + 20_000;
      for (;;) {
        const { rows } = await watcher.query<{ n: number }>(
          `SELECT COUNT(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
           WHERE datname = current_database() AND application_name = 'svc-monitor' AND wait_event_type = 'Lock'`,
        );
        if (rows[0]!.n > 0) break;
        if (Date.now() > deadline) throw new Error('the store never waited for the held lock');
        await new Promise((r) => setTimeout(r, 20));
      }
      const result = await outcome;
      expect(result).toBeInstanceOf(Error);
      expect((result as Error).message).toMatch(/openPostgresStorage: PostgreSQL migration 8 .*failed: terminating connection/);
      // The lost connection's late 'end' must not surface as an uncaught 'error' event.
      await new Promise((r) => setTimeout(r, 200));
    } finally {
      await admin.query('ROLLBACK').catch(() => undefined);
      await admin.end();
      await watcher.end();
      await fresh.drop();
    }
  });

  it('every session has idle_in_transaction_session_timeout (an option; else the database\'s, else three leases), so a transaction left idle by a frozen process loses its locks', async () => {
    const plain = await openPostgresStorage({ connectionString: database.connectionString, schema: 'idle_default', poolSize: 2 });
    opened.push(plain);
    expect((await plain.query<{ idle_in_transaction_session_timeout: string }>('SHOW idle_in_transaction_session_timeout')).rows[0]!.idle_in_transaction_session_timeout).toBe('90s');
    const engineStore = createPostgresEngineStore(plain);
    try {
      // The engine's own transactions run on the same sessions.
      expect(await plain.transaction(async (c) => (await c.query<{ idle_in_transaction_session_timeout: string }>('SHOW idle_in_transaction_session_timeout')).rows[0]!.idle_in_transaction_session_timeout)).toBe('90s');
    } finally {
      await engineStore.dispose();
    }
    const short = await openPostgresStorage({ connectionString: database.connectionString, schema: 'idle_short', poolSize: 2, idleInTransactionTimeoutMs: 300 });
    opened.push(short);
    expect((await short.query<{ idle_in_transaction_session_timeout: string }>('SHOW idle_in_transaction_session_timeout')).rows[0]!.idle_in_transaction_session_timeout).toBe('300ms');
    await short.query(`INSERT INTO tasks (id, type, handler, request, queue, status, audit_level, created_at) VALUES ('idle1', 'T', 'H', '{}', 'q', 'Queued', 'Full', 1)`);
    // A session that takes a row lock and then goes idle inside its transaction (a frozen process).
    const frozen = await short.pool.connect();
    frozen.on('error', () => undefined);
    await frozen.query('BEGIN');
    await frozen.query(`SELECT id FROM tasks WHERE id = 'idle1' FOR UPDATE`);
    await new Promise((r) => setTimeout(r, 800));
    // The server ended it: another session takes the lock at once.
    const { rows } = await short.transaction((c) => c.query<{ id: string }>(`SELECT id FROM tasks WHERE id = 'idle1' FOR UPDATE NOWAIT`));
    expect(rows).toEqual([{ id: 'idle1' }]);
    frozen.release(true);
    const off = await openPostgresStorage({ connectionString: database.connectionString, schema: 'idle_off', poolSize: 1, idleInTransactionTimeoutMs: 0 });
    opened.push(off);
    expect((await off.query<{ idle_in_transaction_session_timeout: string }>('SHOW idle_in_transaction_session_timeout')).rows[0]!.idle_in_transaction_session_timeout).toBe('0');
    // A database's own setting is kept unless the option is given.
    await plain.query(`ALTER DATABASE "${database.name}" SET idle_in_transaction_session_timeout = '5s'`);
    try {
      const kept = await openPostgresStorage({ connectionString: database.connectionString, schema: 'idle_default', poolSize: 1 });
      opened.push(kept);
      expect((await kept.query<{ idle_in_transaction_session_timeout: string }>('SHOW idle_in_transaction_session_timeout')).rows[0]!.idle_in_transaction_session_timeout).toBe('5s');
      const given = await openPostgresStorage({ connectionString: database.connectionString, schema: 'idle_default', poolSize: 1, idleInTransactionTimeoutMs: 2000 });
      opened.push(given);
      expect((await given.query<{ idle_in_transaction_session_timeout: string }>('SHOW idle_in_transaction_session_timeout')).rows[0]!.idle_in_transaction_session_timeout).toBe('2s');
    } finally {
      await plain.query(`ALTER DATABASE "${database.name}" RESET idle_in_transaction_session_timeout`);
    }
  });

  it('bad options fail naming the option', async () => {
    await expect(openPostgresStorage({ connectionString: 'not a url' })).rejects.toThrow(/"connectionString" is not a valid URL/);
    await expect(openPostgresStorage({ connectionString: 'mysql://u@h/db' })).rejects.toThrow(/"connectionString" must start with postgres:\/\//);
    await expect(openPostgresStorage({ connectionString: database.connectionString, schema: 'x;drop' })).rejects.toThrow(/"schema"/);
    await expect(openPostgresStorage({ connectionString: database.connectionString, poolSize: 0 })).rejects.toThrow(/"poolSize"/);
    await expect(openPostgresStorage({ connectionString: database.connectionString, idleInTransactionTimeoutMs: -1 })).rejects.toThrow(/"idleInTransactionTimeoutMs"/);
    await expect(openPostgresStorage({ connectionString: database.connectionString, pool: 3 } as never)).rejects.toThrow(/unknown option "pool"/);
  });

  it('an unreachable server fails at open naming the host and the cause', async () => {
    const port = await closedPort();
    await expect(openPostgresStorage({ connectionString: `postgres://postgres@127.0.0.1:${port}/x` })).rejects.toThrow(
      new RegExp(`PostgreSQL at 127\\.0\\.0\\.1:${port} is unreachable: connection refused`),
    );
    await expect(openPostgresStorage({ connectionString: 'postgres://postgres@no-such-host.invalid:5432/x' })).rejects.toThrow(
      /PostgreSQL at no-such-host\.invalid:5432 is unreachable: the host name no-such-host\.invalid does not resolve/,
    );
  });

  it('a refused password and an unknown database fail at open naming the host and the cause', async () => {
    const fake = await passwordRefusingServer();
    try {
      await expect(openPostgresStorage({ connectionString: `postgres://svc:wrong@127.0.0.1:${fake.port}/app` })).rejects.toThrow(
        new RegExp(`PostgreSQL at 127\\.0\\.0\\.1:${fake.port} refused the password of user "svc"`),
      );
    } finally {
      await fake.close();
    }
    const url = new URL(database.connectionString);
    url.pathname = '/svc_no_such_database';
    await expect(openPostgresStorage({ connectionString: url.toString() })).rejects.toThrow(
      /PostgreSQL at 127\.0\.0\.1:5432 has no database "svc_no_such_database"/,
    );
  });
});
