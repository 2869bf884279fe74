import type { Database } from 'better-sqlite3';
import type { PostgresStorage } from '../../../server/src/storage/postgres/PostgresStorage.js';
import type { Backend } from './backends.js';

/**
 * What the engine and schedule suites read back from the store, on either backend. Both schemas
 * have the same tables and columns (instants as integer ms, booleans as 0/1), so a plain SELECT
 * reads the same on both; `?` placeholders are numbered for PostgreSQL. Columns only PostgreSQL
 * has (seq, instance_id) are left out of whole-row reads.
 */
export interface StoreProbe {
  readonly backend: Backend;
  /** Every row of a SELECT (`?` placeholders). */
  rows<T = Record<string, unknown>>(sql: string, ...params: unknown[]): Promise<T[]>;
  /** The first row, or undefined. */
  row<T = Record<string, unknown>>(sql: string, ...params: unknown[]): Promise<T | undefined>;
  /** The first column of the first row (undefined when no row). */
  value<T = unknown>(sql: string, ...params: unknown[]): Promise<T>;
  /** The first column of every row. */
  values<T = unknown>(sql: string, ...params: unknown[]): Promise<T[]>;
  /** A write a test makes to set up what a crash or another process leaves behind. */
  run(sql: string, ...params: unknown[]): Promise<void>;
  /** The task row (without backend-only columns), or undefined. */
  task(id: string): Promise<Record<string, unknown> | undefined>;
  status(id: string): Promise<string | undefined>;
  /** Statuses of several tasks, in the order given. */
  statuses(ids: readonly string[]): Promise<(string | undefined)[]>;
  /** status_audit new_status values of a task, oldest first. */
  audits(id: string): Promise<string[]>;
  auditRows(id: string): Promise<{ new_status: string; exception: string | null; updated_at: number }[]>;
  /** runs_audit rows of a task, oldest first. */
  runs(id: string): Promise<{ status: string; execution_time_ms: number; exception: string | null; executed_at: number }[]>;
  /** execution_logs of a task in sequence order. */
  logs(id: string): Promise<{ level: string; message: string; sequence_number: number }[]>;
  /** The task-count read model: non-zero counts per type and status, sorted. */
  taskCounts(): Promise<{ type: string; status: string; n: number }[]>;
  /** Tasks per status (from the task table). */
  countByStatus(): Promise<Record<string, number>>;
}

const BACKEND_ONLY_COLUMNS = ['seq', 'instance_id'];

function common(backend: Backend, all: (sql: string, params: unknown[]) => Promise<Record<string, unknown>[]>, run: (sql: string, params: unknown[]) => Promise<void>, countsView: string): StoreProbe {
  const rows = <T>(sql: string, ...params: unknown[]) => all(sql, params) as Promise<T[]>;
  const first = async <T>(sql: string, params: unknown[]) => (await all(sql, params))[0] as T | undefined;
  const firstColumn = (r: Record<string, unknown> | undefined) => (r === undefined ? undefined : Object.values(r)[0]);
  const probe: StoreProbe = {
    backend,
    rows,
    row: (sql, ...params) => first(sql, params),
    value: async <T>(sql: string, ...params: unknown[]) => firstColumn(await first(sql, params)) as T,
    values: async <T>(sql: string, ...params: unknown[]) => (await all(sql, params)).map(firstColumn) as T[],
    run: (sql, ...params) => run(sql, params),
    async task(id) {
      const r = await first<Record<string, unknown>>('SELECT * FROM tasks WHERE id = ?', [id]);
      if (r !== undefined) for (const c of BACKEND_ONLY_COLUMNS) delete r[c];
      return r;
    },
    status: (id) => probe.value<string | undefined>('SELECT status FROM tasks WHERE id = ?', id),
    async statuses(ids) {
      if (ids.length === 0) return [];
      const list = ids.map(() => '?').join(', ');
      const found = new Map((await rows<{ id: string; status: string }>(`SELECT id, status FROM tasks WHERE id IN (${list})`, ...ids)).map((r) => [r.id, r.status]));
      return ids.map((id) => found.get(id));
    },
    audits: (id) => probe.values<string>('SELECT new_status FROM status_audit WHERE task_id = ? ORDER BY id', id),
    auditRows: (id) => rows('SELECT new_status, exception, updated_at FROM status_audit WHERE task_id = ? ORDER BY id', id),
    runs: (id) => rows('SELECT status, execution_time_ms, exception, executed_at FROM runs_audit WHERE task_id = ? ORDER BY id', id),
    logs: (id) => rows('SELECT level, message, sequence_number FROM execution_logs WHERE task_id = ? ORDER BY sequence_number', id),
    taskCounts: () =>
      rows(`SELECT type, status, SUM(n) AS n FROM ${countsView} GROUP BY type, status HAVING SUM(n) <> 0 ORDER BY type, status`),
    async countByStatus() {
      const r = await rows<{ status: string; n: number }>('SELECT status, COUNT(*) AS n FROM tasks GROUP BY status');
      return Object.fromEntries(r.map((x) => [x.status, x.n]));
    },
  };
  return probe;
}

/** The probe over an open SQLite database (reads on the test's own connection). */
export function sqliteProbe(db: () => Database): StoreProbe {
  return common(
    'sqlite',
    async (sql, params) => db().prepare(sql).all(...params) as Record<string, unknown>[],
    async (sql, params) => void db().prepare(sql).run(...params),
    'stat_tasks',
  );
}

/** `?` → `$1`, `$2`… (the suites' SQL has no `?` inside literals). */
export const numberPlaceholders = (sql: string): string => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};

/** The probe over a PostgreSQL store (the read models are the rolled-up tables plus pending deltas). */
export function postgresProbe(storage: () => Promise<PostgresStorage>): StoreProbe {
  return common(
    'postgres',
    async (sql, params) => (await (await storage()).query(numberPlaceholders(sql), params)).rows,
    async (sql, params) => void (await (await storage()).query(numberPlaceholders(sql), params)),
    'stat_tasks_v',
  );
}
