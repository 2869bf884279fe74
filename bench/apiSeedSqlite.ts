// Bulk load of the bench:api population into a SQLite file (created and migrated by openDatabase).
// - Journal off, synchronous off, exclusive lock, a 1 GiB page cache and in-memory temp storage:
//   the file is thrown away if the load fails, so nothing needs to survive a crash.
// - Secondary indexes and the task triggers are dropped first and built once at the end; the
//   ids are time-ordered (UUIDv7) in creation order, so the primary key, the creation index and
//   the audit index that stay only ever append.
// - Tasks go in as multi-row INSERTs in large transactions; their status audits are then
//   generated set-based from the task rows (one INSERT … SELECT in task order).
// - Then the read models, the argument index and the statistics (ANALYZE, sampled) are rebuilt.
import type { Database } from 'better-sqlite3';
import { rebuildReadModels } from '../server/src/storage/sqlite/readModels/rebuildReadModels.js';
import { rebuildSearchRows } from '../server/src/storage/sqlite/readModels/rebuildSearchRows.js';
import { AUDIT_STATUS_SQL, AUDITS_PER_TASK, FAILED_EXCEPTION, generateTasks, IS_SCHEDULE_SQL, TASK_COLUMN_COUNT, TASK_COLUMNS, type TaskValues } from './apiData.js';

/** Indexes whose keys arrive in order during the load (they only append): kept. */
const APPEND_ONLY_INDEXES = ['ix_tasks_created', 'ix_status_audit_task'];
const TASKS_PER_INSERT = 40;
const TASKS_PER_TRANSACTION = 500_000;

export interface SeedTimings {
  loadS: number;
  auditsS: number;
  indexS: number;
  readModelsS: number;
  searchS: number;
  analyzeS: number;
  /** PostgreSQL: the wall time of everything after the load, whose phases overlap on two connections. */
  restS?: number;
}

const seconds = (t0: number) => Math.round((performance.now() - t0) / 100) / 10;
/** CPU seconds of this process since `c0` (with the wall time: how much the machine's load stretched a phase). */
const cpu = (c0: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(c0);
  return `${Math.round((u.user + u.system) / 100_000) / 10} s CPU`;
};

/** Drops the other secondary indexes and the triggers of the task tables; returns the SQL that recreates them. */
function dropForBulkLoad(db: Database): { indexes: string[]; triggers: string[] } {
  const objects = (
    db
      .prepare(`SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND ((type = 'index' AND tbl_name IN ('tasks', 'status_audit')) OR (type = 'trigger' AND tbl_name = 'tasks'))`)
      .all() as { type: string; name: string; sql: string }[]
  ).filter((o) => !APPEND_ONLY_INDEXES.includes(o.name));
  for (const o of objects) db.exec(`DROP ${o.type.toUpperCase()} ${o.name}`);
  return { indexes: objects.filter((o) => o.type === 'index').map((o) => o.sql), triggers: objects.filter((o) => o.type === 'trigger').map((o) => o.sql) };
}

export function seedSqlite(db: Database, rows: number, now: number, log: (line: string) => void): { ids: string[]; timings: SeedTimings } {
  const { indexes, triggers } = dropForBulkLoad(db);
  // better-sqlite3 opens connections in defensive mode, which refuses journal_mode=OFF (and the
  // file is in WAL mode): leave WAL through DELETE, lift the guard for the load, check the result.
  db.unsafeMode(true);
  db.pragma('journal_mode = DELETE');
  if (db.pragma('journal_mode = OFF', { simple: true }) !== 'off') throw new Error('bench:api could not turn the journal off for the bulk load');
  db.pragma('synchronous = OFF');
  db.pragma('locking_mode = EXCLUSIVE');
  db.pragma('cache_size = -1048576');
  db.pragma('temp_store = MEMORY');
  db.pragma('threads = 4');

  // 1. Tasks: multi-row inserts.
  let t0 = performance.now();
  let c0 = process.cpuUsage();
  const tuple = `(${Array.from({ length: TASK_COLUMN_COUNT }, () => '?').join(', ')}, 'Full')`;
  const insertSql = (n: number) => `INSERT INTO tasks (${TASK_COLUMNS}, audit_level) VALUES ${Array.from({ length: n }, () => tuple).join(', ')}`;
  const insertMany = db.prepare(insertSql(TASKS_PER_INSERT));
  const insertOne = db.prepare(insertSql(1));
  const ids: string[] = [];
  const params: unknown[] = new Array(TASK_COLUMN_COUNT * TASKS_PER_INSERT);
  let inBatch = 0;
  let inTransaction = 0;
  db.exec('BEGIN');
  for (const task of generateTasks(rows, now, ids)) {
    const base = inBatch * TASK_COLUMN_COUNT;
    for (let c = 0; c < TASK_COLUMN_COUNT; c++) params[base + c] = task[c];
    if (++inBatch === TASKS_PER_INSERT) {
      insertMany.run(params);
      inBatch = 0;
    }
    if (++inTransaction === TASKS_PER_TRANSACTION) {
      for (let k = 0; k < inBatch; k++) insertOne.run(params.slice(k * TASK_COLUMN_COUNT, (k + 1) * TASK_COLUMN_COUNT) as TaskValues);
      inBatch = 0;
      inTransaction = 0;
      db.exec('COMMIT; BEGIN');
    }
  }
  for (let k = 0; k < inBatch; k++) insertOne.run(params.slice(k * TASK_COLUMN_COUNT, (k + 1) * TASK_COLUMN_COUNT) as TaskValues);
  db.exec('COMMIT');
  const loadS = seconds(t0);
  log(`loaded ${rows.toLocaleString('en')} tasks in ${loadS} s, ${cpu(c0)} (${Math.round(rows / loadS).toLocaleString('en')} rows/s)`);

  // 2. Status audits, set-based, in task order (the nested loop walks the tasks outermost, so the
  //    audit index appends).
  t0 = performance.now();
  c0 = process.cpuUsage();
  const STEPS = Array.from({ length: AUDITS_PER_TASK }, (_, k) => `SELECT ${k} AS k`).join(' UNION ALL ');
  db.transaction(() => {
    db.prepare(`INSERT INTO status_audit (task_id, updated_at, new_status, exception)
      SELECT t.id, t.created_at + a.k * 10, ${AUDIT_STATUS_SQL}, CASE WHEN a.k = 4 AND t.status = 'Failed' THEN ? END
        FROM tasks t NOT INDEXED CROSS JOIN (${STEPS}) a
       WHERE a.k = 0 OR NOT ${IS_SCHEDULE_SQL}`).run(FAILED_EXCEPTION);
  })();
  const auditsS = seconds(t0);
  const audits = db.prepare('SELECT MAX(id) FROM status_audit').pluck().get() as number;
  log(`generated ${audits.toLocaleString('en')} status audits in ${auditsS} s, ${cpu(c0)} (${Math.round(audits / auditsS).toLocaleString('en')} rows/s)`);

  // 3. Secondary indexes, each one sort of the table.
  t0 = performance.now();
  c0 = process.cpuUsage();
  for (const sql of indexes) db.exec(sql);
  const indexS = seconds(t0);
  log(`built ${indexes.length} indexes in ${indexS} s, ${cpu(c0)}`);

  // 4. Read models (set-based rebuild), then the triggers that keep them.
  t0 = performance.now();
  c0 = process.cpuUsage();
  rebuildReadModels(db);
  for (const sql of triggers) db.exec(sql);
  const readModelsS = seconds(t0);
  log(`rebuilt the read models in ${readModelsS} s, ${cpu(c0)}`);

  // 5. Search rows with their sort columns, the argument index and the key index: one pass each (the
  //    search-row key is the task's rowid, fresh after the load), with a large in-memory term buffer so that the index is written
  //    as few large segments (fewer merges), then the buffer size back to its default.
  t0 = performance.now();
  c0 = process.cpuUsage();
  db.exec(`INSERT INTO task_request_fts (task_request_fts, rank) VALUES ('hashsize', ${512 * 1024 * 1024})`);
  rebuildSearchRows(db);
  db.exec(`INSERT INTO task_request_fts (task_request_fts, rank) VALUES ('hashsize', ${1024 * 1024})`);
  const searchS = seconds(t0);
  log(`rebuilt the search rows, the argument index and the key index in ${searchS} s, ${cpu(c0)}`);

  t0 = performance.now();
  c0 = process.cpuUsage();
  db.pragma('analysis_limit = 1000');
  db.exec('ANALYZE');
  db.pragma('locking_mode = NORMAL');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.unsafeMode(false);
  const analyzeS = seconds(t0);
  log(`ANALYZE in ${analyzeS} s, ${cpu(c0)}`);
  return { ids, timings: { loadS, auditsS, indexS, readModelsS, searchS, analyzeS } };
}
