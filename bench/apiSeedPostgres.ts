// Bulk load of the bench:api population into a PostgreSQL store (its own database, migrated by
// openPostgresStorage), the same rows as the SQLite seeder:
// - secondary indexes and the task triggers are dropped first and built once at the end (with a
//   large maintenance_work_mem and parallel workers); the primary key stays (time-ordered ids
//   append to it);
// - tasks go in as multi-row INSERT … SELECT FROM unnest(arrays) batches on one connection, with
//   synchronous_commit off; status audits are then generated set-based from the task rows;
// - then the read models are rebuilt (the store's own rebuild) and VACUUM ANALYZE sets the
//   statistics and the visibility map (index-only scans);
// - the argument-search words (`task_search`) are written in one statement after the load.
import type { PoolClient } from 'pg';
import type { PostgresStorage } from '../server/src/storage/postgres/PostgresStorage.js';
import { AUDIT_STATUS_SQL, AUDITS_PER_TASK, FAILED_EXCEPTION, generateTasks, TASK_COLUMN_COUNT, TASK_COLUMNS, type TaskValues } from './apiData.js';
import type { SeedTimings } from './apiSeedSqlite.js';

const BATCH = 5_000;
/** PostgreSQL array types of TASK_COLUMNS, in order. */
const COLUMN_TYPES = [
  'text', 'text', 'text', 'text', 'text', 'text', 'text', 'bigint', 'bigint', 'bigint', 'bigint',
  'float8', 'int', 'text', 'text', 'int', 'text', 'text', 'text', 'int', 'text', 'text', 'bigint', 'int', 'text',
] as const;

const seconds = (t0: number) => Math.round((performance.now() - t0) / 100) / 10;

export async function seedPostgres(storage: PostgresStorage, rows: number, now: number, log: (line: string) => void): Promise<{ ids: string[]; timings: SeedTimings }> {
  if (COLUMN_TYPES.length !== TASK_COLUMN_COUNT) throw new Error('COLUMN_TYPES does not match TASK_COLUMNS');
  const client: PoolClient = await storage.pool.connect();
  try {
    await client.query(`SET search_path TO "${storage.schema}"`);
    await client.query(`SET synchronous_commit = off`);
    await client.query(`SET maintenance_work_mem = '1GB'`);
    await client.query(`SET max_parallel_maintenance_workers = 2`);
    await client.query(`SET work_mem = '256MB'`);

    // Secondary indexes (not the primary keys) and the task triggers: dropped, recreated at the end.
    const indexes = (await client.query<{ name: string; def: string }>(
      `SELECT i.indexname AS name, i.indexdef AS def FROM pg_indexes i
        WHERE i.schemaname = $1 AND i.tablename IN ('tasks', 'status_audit', 'task_search')
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

    // 1. Tasks.
    let t0 = performance.now();
    const ids: string[] = [];
    const insert = `INSERT INTO tasks (${TASK_COLUMNS}, audit_level)
      SELECT *, 'Full' FROM unnest(${COLUMN_TYPES.map((t, i) => `$${i + 1}::${t}[]`).join(', ')})`;
    const columns: unknown[][] = COLUMN_TYPES.map(() => []);
    const flush = async () => {
      if (columns[0]!.length === 0) return;
      await client.query(insert, columns);
      for (const c of columns) c.length = 0;
    };
    await client.query('BEGIN');
    let n = 0;
    for (const task of generateTasks(rows, now, ids) as Generator<TaskValues>) {
      for (let c = 0; c < TASK_COLUMN_COUNT; c++) columns[c]!.push(task[c]);
      if (++n % BATCH === 0) await flush();
    }
    await flush();
    await client.query('COMMIT');
    const loadS = seconds(t0);
    log(`loaded ${rows.toLocaleString('en')} tasks in ${loadS} s (${Math.round(rows / loadS).toLocaleString('en')} rows/s)`);

    // 2. Status audits, set-based.
    t0 = performance.now();
    const audits = await client.query(
      `INSERT INTO status_audit (task_id, updated_at, new_status, exception)
       SELECT t.id, t.created_at + a.k * 10, ${AUDIT_STATUS_SQL}, CASE WHEN a.k = 4 AND t.status = 'Failed' THEN $1 END
         FROM tasks t CROSS JOIN generate_series(0, ${AUDITS_PER_TASK - 1}) AS a(k)
        WHERE a.k = 0 OR NOT (COALESCE(t.occurrence_mode, '') = 'Durable' AND t.parent_task_id IS NULL)`,
      [FAILED_EXCEPTION],
    );
    const auditsS = seconds(t0);
    log(`generated ${(audits.rowCount ?? 0).toLocaleString('en')} status audits in ${auditsS} s`);

    // 3. The argument-search words (kept by a trigger on tasks in normal operation; the trigger is
    //    off during the load, so they are written here in one statement).
    t0 = performance.now();
    const words = await client.query(`INSERT INTO task_search (seq, words) SELECT seq, svc_request_vector(request) FROM tasks`);
    const searchS = seconds(t0);
    log(`wrote ${(words.rowCount ?? 0).toLocaleString('en')} argument-search rows in ${searchS} s`);

    // 4. Indexes.
    t0 = performance.now();
    for (const i of indexes) await client.query(i.def);
    const indexS = seconds(t0);
    log(`built ${indexes.length} indexes in ${indexS} s`);

    // 5. Triggers, then the store's own read-model rebuild.
    t0 = performance.now();
    for (const t of triggers) await client.query(t.def);
    await storage.rebuildReadModels();
    const readModelsS = seconds(t0);
    log(`rebuilt the read models in ${readModelsS} s`);

    // 6. Statistics and visibility map.
    t0 = performance.now();
    await client.query('VACUUM (ANALYZE) tasks');
    await client.query('VACUUM (ANALYZE) status_audit');
    await client.query('ANALYZE');
    const analyzeS = seconds(t0);
    log(`VACUUM ANALYZE in ${analyzeS} s`);
    return { ids, timings: { loadS, auditsS, indexS, readModelsS, searchS, analyzeS } };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
