// Bulk load of the bench:api population into a PostgreSQL store (its own database, migrated by
// openPostgresStorage), the same rows as the SQLite seeder:
// - secondary indexes and the task triggers are dropped first and built once at the end; the
//   primary keys stay (time-ordered ids append to them);
// - tasks go in through one COPY (pg-copy-streams), generated while the server stores them, with
//   synchronous_commit off;
// - then two connections share the rest (bench/parallelJobs.ts), longest first: the status audits
//   (set-based from the task rows), the argument-search words (`task_search`) and the task keys
//   (`task_keys`; both kept by triggers on tasks in normal operation, off during the load), each
//   table's indexes once its rows are in, the read-model rebuild (the store's own), the triggers, then VACUUM ANALYZE (the
//   statistics and the visibility map: index-only scans). Each index is built by one process (no
//   parallel workers): the two connections already keep both cores busy.
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

export async function seedPostgres(storage: PostgresStorage, rows: number, now: number, log: (line: string) => void): Promise<{ ids: string[]; timings: SeedTimings }> {
  const clients = [await seedingConnection(storage), await seedingConnection(storage)];
  const [client] = clients as [PoolClient, PoolClient];
  try {
    // Secondary indexes (not the primary keys) and the task triggers: dropped, recreated at the end.
    const indexes = (await client.query<{ name: string; table: string; def: string }>(
      `SELECT i.indexname AS name, i.tablename AS table, i.indexdef AS def FROM pg_indexes i
        WHERE i.schemaname = $1 AND i.tablename IN ('tasks', 'status_audit', 'task_search', 'task_keys')
          AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname AND c.connamespace = $1::regnamespace)`,
      [storage.schema],
    )).rows;
    const triggers = (await client.query<{ name: string; def: string }>(
      `SELECT tgname AS name, pg_get_triggerdef(t.oid) AS def FROM pg_trigger t
        WHERE t.tgrelid = $1::regclass AND NOT t.tgisinternal`,
      [`"${storage.schema}".tasks`],
    )).rows;
    for (const i of indexes) await client.query(`DROP INDEX "${i.name}"`);
    for (const t of triggers) await client.query(`DROP TRIGGER "${t.name}" ON tasks`);

    // 1. Tasks: one COPY, the rows generated as the server takes them in.
    let t0 = performance.now();
    const ids: string[] = [];
    await pipeline(Readable.from(copyChunks(rows, now, ids)), client.query(copyFrom(`COPY tasks (${TASK_COLUMNS}, audit_level) FROM STDIN`)));
    const loadS = seconds(t0);
    log(`loaded ${rows.toLocaleString('en')} tasks in ${loadS} s (${Math.round(rows / loadS).toLocaleString('en')} rows/s)`);

    // 2. The rest on two connections. Locks: CREATE INDEX (SHARE on its table) runs beside reads
    //    and other index builds of the table; the triggers and VACUUM wait for the table's builds.
    t0 = performance.now();
    const indexJob = (i: { name: string; table: string; def: string }, after: string[]): Job<PoolClient> => ({ name: `index ${i.name}`, after, run: (c) => c.query(i.def) });
    const ofTable = (table: string) => indexes.filter((i) => i.table === table);
    const taskIndexes = ofTable('tasks').map((i) => indexJob(i, []));
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
      ...ofTable('status_audit').map((i) => indexJob(i, ['audits'])),
      ...ofTable('task_search').map((i) => indexJob(i, ['search words'])),
      { name: 'task keys', run: (c) => c.query(`INSERT INTO task_keys (seq, created_at, task_key) SELECT seq, created_at, task_key FROM tasks WHERE task_key IS NOT NULL`) },
      ...ofTable('task_keys').map((i) => indexJob(i, ['task keys'])),
      ...taskIndexes,
      { name: 'read models', run: () => storage.rebuildReadModels() },
      {
        name: 'triggers',
        after: [...taskIndexes.map((j) => j.name), 'read models'],
        run: async (c) => {
          for (const t of triggers) await c.query(t.def);
        },
      },
      { name: 'vacuum tasks', after: ['triggers'], run: (c) => c.query('VACUUM (ANALYZE) tasks') },
      { name: 'vacuum status_audit', after: ofTable('status_audit').map((i) => `index ${i.name}`), run: (c) => c.query('VACUUM (ANALYZE) status_audit') },
      {
        name: 'analyze',
        after: [...ofTable('task_search').map((i) => `index ${i.name}`), ...ofTable('task_keys').map((i) => `index ${i.name}`), 'vacuum tasks', 'vacuum status_audit'],
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
      indexS: sum('index '),
      readModelsS: took.get('read models')!,
      analyzeS: Math.round((sum('vacuum ') + took.get('analyze')!) * 10) / 10,
      restS,
    };
    log(`status audits ${timings.auditsS} s, argument-search rows ${timings.searchS} s, ${indexes.length} indexes ${timings.indexS} s, read models ${timings.readModelsS} s, VACUUM ANALYZE ${timings.analyzeS} s`);
    return { ids, timings };
  } finally {
    for (const c of clients) c.release();
  }
}
