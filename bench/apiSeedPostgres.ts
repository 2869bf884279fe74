// Bulk load of the bench:api population into a PostgreSQL store (its own database, migrated by
// openPostgresStorage), the same rows as the SQLite seeder:
// - every index of the four loaded tables (primary keys included) and the task triggers are
//   dropped first and built once at the end;
// - the four tables are UNLOGGED while they are filled (no WAL record per row: on a shared server
//   the WAL writer is the queue every writer waits in), then SET LOGGED before their indexes are
//   built (the heap written to the WAL once, page by page; no index exists yet to be rebuilt);
// - tasks go in through one COPY (pg-copy-streams), generated while the server stores them, with
//   synchronous_commit off;
// - then two connections share the rest (bench/parallelJobs.ts), longest first: the status audits
//   (set-based from the task rows), the argument-search words (`task_search`) and the task keys
//   (`task_keys`; both kept by triggers on tasks in normal operation, off during the load), each
//   table's SET LOGGED and indexes once its rows are in, the read-model rebuild (the store's own),
//   the triggers, then VACUUM ANALYZE (the statistics and the visibility map: index-only scans).
//   Each index is built by one process (no parallel workers): the two connections already keep
//   both cores busy.
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { PostgresStorage } from '../server/src/storage/postgres/PostgresStorage.js';
import { AUDIT_STATUS_SQL, AUDITS_PER_TASK, FAILED_EXCEPTION, generateTasks, TASK_COLUMNS, type TaskValues } from './apiData.js';
import type { SeedTimings } from './apiSeedSqlite.js';
import { runJobs, type Job } from './parallelJobs.js';

/** Rows per chunk written to the COPY stream. */
const COPY_CHUNK_ROWS = 1_000;
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** A value in COPY's text format: NULL as \N, the backslash and the row and column separators escaped. */
function copyField(v: TaskValues[number]): string {
  if (v === null) return '\\N';
  if (typeof v === 'number') return String(v);
  return /[\\\t\n\r]/.test(v) ? v.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c]!) : v;
}

/** The generated tasks as COPY text, a chunk of rows at a time; audit_level is the last column (also the seed test's plain load). */
export function* copyChunks(rows: number, now: number, ids: string[]): Generator<string> {
  let chunk = '';
  let n = 0;
  for (const task of generateTasks(rows, now, ids)) {
    chunk += `${task.map(copyField).join('\t')}\tFull\n`;
    if (++n % COPY_CHUNK_ROWS === 0) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk !== '') yield chunk;
}

const seconds = (t0: number) => Math.round((performance.now() - t0) / 100) / 10;

/** A seeding connection: the store's schema, no wait for the WAL flush at commit, room to sort. */
async function seedingConnection(storage: PostgresStorage): Promise<PoolClient> {
  const client = await storage.pool.connect();
  await client.query(`SET search_path TO "${storage.schema}"`);
  await client.query(`SET synchronous_commit = off`);
  await client.query(`SET maintenance_work_mem = '1GB'`);
  await client.query(`SET max_parallel_maintenance_workers = 0`);
  await client.query(`SET work_mem = '256MB'`);
  return client;
}

/** The tables the seed fills: unlogged and without indexes while they are. */
const LOADED_TABLES = ['tasks', 'status_audit', 'task_search', 'task_keys'] as const;

interface IndexDef {
  name: string;
  table: string;
  /** The statement that builds it again: CREATE INDEX, or for a primary key ALTER TABLE … ADD CONSTRAINT. */
  def: string;
}

export async function seedPostgres(storage: PostgresStorage, rows: number, now: number, log: (line: string) => void): Promise<{ ids: string[]; timings: SeedTimings }> {
  const clients = [await seedingConnection(storage), await seedingConnection(storage)];
  const [client] = clients as [PoolClient, PoolClient];
  try {
    // Every index of the loaded tables (primary keys as their constraints) and the task triggers:
    // dropped, built again at the end. The primary keys first: adding one locks its table out.
    const indexes = (await client.query<IndexDef & { constraint: boolean }>(
      `SELECT i.indexname AS name, i.tablename AS table,
              CASE WHEN c.oid IS NULL THEN i.indexdef ELSE format('ALTER TABLE %I ADD CONSTRAINT %I %s', i.tablename, c.conname, pg_get_constraintdef(c.oid)) END AS def,
              c.oid IS NOT NULL AS constraint
         FROM pg_indexes i
         LEFT JOIN pg_constraint c ON c.conname = i.indexname AND c.connamespace = $3::text::regnamespace
        WHERE i.schemaname = $1 AND i.tablename = ANY($2::text[])
        ORDER BY c.oid IS NULL, i.indexname`,
      [storage.schema, LOADED_TABLES, storage.schema],
    )).rows;
    const triggers = (await client.query<{ name: string; def: string }>(
      `SELECT tgname AS name, pg_get_triggerdef(t.oid) AS def FROM pg_trigger t
        WHERE t.tgrelid = $1::regclass AND NOT t.tgisinternal`,
      [`"${storage.schema}".tasks`],
    )).rows;
    for (const i of indexes) await client.query(i.constraint ? `ALTER TABLE "${i.table}" DROP CONSTRAINT "${i.name}"` : `DROP INDEX "${i.name}"`);
    for (const t of triggers) await client.query(`DROP TRIGGER "${t.name}" ON tasks`);
    for (const table of LOADED_TABLES) await client.query(`ALTER TABLE "${table}" SET UNLOGGED`);

    // 1. Tasks: one COPY, the rows generated as the server takes them in.
    let t0 = performance.now();
    const ids: string[] = [];
    await pipeline(Readable.from(copyChunks(rows, now, ids)), client.query(copyFrom(`COPY tasks (${TASK_COLUMNS}, audit_level) FROM STDIN`)));
    const loadS = seconds(t0);
    log(`loaded ${rows.toLocaleString('en')} tasks in ${loadS} s (${Math.round(rows / loadS).toLocaleString('en')} rows/s)`);

    // 2. The rest on two connections. Locks: CREATE INDEX (SHARE on its table) runs beside reads
    //    and other index builds of the table; SET LOGGED (ACCESS EXCLUSIVE) waits for the table's
    //    readers, the triggers and VACUUM for the table's builds.
    t0 = performance.now();
    const logged = (table: string) => `logged ${table}`;
    const indexJob = (i: IndexDef): Job<PoolClient> => ({ name: `index ${i.name}`, after: [logged(i.table)], run: (c) => c.query(i.def) });
    const ofTable = (table: string) => indexes.filter((i) => i.table === table).map(indexJob);
    const loggedJob = (table: string, after: string[]): Job<PoolClient> => ({ name: logged(table), after, run: (c) => c.query(`ALTER TABLE "${table}" SET LOGGED`) });
    const names = (jobs: Job<PoolClient>[]) => jobs.map((j) => j.name);
    const taskIndexes = ofTable('tasks');
    const auditIndexes = ofTable('status_audit');
    const searchIndexes = ofTable('task_search');
    const keyIndexes = ofTable('task_keys');
    // List order is priority: the longest jobs first, so that the tail left to one connection is short.
    const jobs: Job<PoolClient>[] = [
      {
        name: 'audits',
        run: (c) => c.query(
          `INSERT INTO status_audit (task_id, updated_at, new_status, exception)
           SELECT t.id, t.created_at + a.k * 10, ${AUDIT_STATUS_SQL}, CASE WHEN a.k = 4 AND t.status = 'Failed' THEN $1 END
             FROM tasks t CROSS JOIN generate_series(0, ${AUDITS_PER_TASK - 1}) AS a(k)
            WHERE a.k = 0 OR NOT (COALESCE(t.occurrence_mode, '') = 'Durable' AND t.parent_task_id IS NULL)`,
          [FAILED_EXCEPTION],
        ),
      },
      { name: 'search words', run: (c) => c.query(`INSERT INTO task_search (seq, created_at, words) SELECT seq, created_at, svc_request_vector(request) FROM tasks`) },
      { name: 'task keys', run: (c) => c.query(`INSERT INTO task_keys (seq, created_at, task_key) SELECT seq, created_at, task_key FROM tasks WHERE task_key IS NOT NULL`) },
      loggedJob('status_audit', ['audits']),
      loggedJob('task_search', ['search words']),
      loggedJob('tasks', ['audits', 'search words', 'task keys']),
      loggedJob('task_keys', ['task keys']),
      ...auditIndexes,
      ...searchIndexes,
      ...taskIndexes,
      ...keyIndexes,
      { name: 'read models', after: [logged('tasks')], run: () => storage.rebuildReadModels() },
      {
        name: 'triggers',
        after: [...names(taskIndexes), 'read models'],
        run: async (c) => {
          for (const t of triggers) await c.query(t.def);
        },
      },
      { name: 'vacuum tasks', after: ['triggers'], run: (c) => c.query('VACUUM (ANALYZE) tasks') },
      { name: 'vacuum status_audit', after: names(auditIndexes), run: (c) => c.query('VACUUM (ANALYZE) status_audit') },
      {
        name: 'analyze',
        after: [...names(searchIndexes), ...names(keyIndexes), 'vacuum tasks', 'vacuum status_audit'],
        run: (c) => c.query('ANALYZE'),
      },
    ];
    const took = await runJobs(clients, jobs, log);
    const restS = seconds(t0);
    const sum = (prefix: string) => Math.round([...took].filter(([name]) => name.startsWith(prefix)).reduce((n, [, s]) => n + s, 0) * 10) / 10;
    log(`built the rest in ${restS} s on two connections (the phases below overlap)`);
    const timings = {
      loadS,
      auditsS: took.get('audits')!,
      searchS: took.get('search words')!,
      loggedS: sum('logged '),
      indexS: sum('index '),
      readModelsS: took.get('read models')!,
      analyzeS: Math.round((sum('vacuum ') + took.get('analyze')!) * 10) / 10,
      restS,
    };
    log(`status audits ${timings.auditsS} s, argument-search rows ${timings.searchS} s, SET LOGGED ${timings.loggedS} s, ${indexes.length} indexes ${timings.indexS} s, read models ${timings.readModelsS} s, VACUUM ANALYZE ${timings.analyzeS} s`);
    return { ids, timings };
  } finally {
    for (const c of clients) c.release();
  }
}
