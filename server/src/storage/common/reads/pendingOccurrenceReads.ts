import { LEVELS_RECORDING_PLAIN_TRANSITIONS } from '../auditAllows.js';
import type { ReadDb, ReadDialect } from './ReadDb.js';

/**
 * Compact Pending occurrences (SQLite migration 15) in the monitoring reads.
 *
 * Rules, in one place:
 * - A compact occurrence is shown exactly as the task row it stands for: the view
 *   `pending_occurrence_tasks` names every column as `tasks` does, and its `rowid` (2^40 + seq)
 *   is its insertion order (after every task row).
 * - It is already counted in the read models (stat_tasks, stat_created_*), so a count read from
 *   them needs nothing more; a count or a page read from `tasks` asks the view too.
 * - It has no status-audit row: its one Pending entry (at its creation time) is synthesized
 *   where its audit level records Pending transitions (RECORDS_PENDING). No runs audit,
 *   no execution log.
 * - It has no search row: its request is its schedule's request, so an argument match is a match
 *   of its schedule's search row; it has no task key, so a key match never holds.
 * - The same on both backends (SQLite migration 15, PostgreSQL migration 19), the same SQL but for
 *   the dialect's few words (a JSON list of integers, the request search).
 * - With no compact rows every read takes the task-table path alone,
 *   with the SQL it had before compact occurrences existed (a detail, status-audit page or
 *   management target of an id with no task row / no audit row looks the id up among them: one
 *   indexed lookup).
 * - Reads that need nothing: counts, queue metrics, task types and the overview's totals (read
 *   models); schedule states and halted schedules (schedule rows); Queued, reserved, throttled,
 *   failed rows and runs (a compact occurrence is none of them); the first creation time (its
 *   schedule row is older).
 */
export const PENDING_OCCURRENCE_TASKS = 'pending_occurrence_tasks';

/** The condition on a row whose audit level records its Pending creation (a transition without error text). */
export const RECORDS_PENDING = `audit_level IN (${LEVELS_RECORDING_PLAIN_TRANSITIONS.map((l) => `'${l}'`).join(', ')})`;

/** The view's rowid offset: a synthesized audit entry's id is its occurrence's view rowid. */
export const COMPACT_ROWID_BASE = 2 ** 40;

/** The first and last creation time of the compact occurrences. */
export interface CreatedSpan {
  first: number;
  last: number;
}

export interface PendingOccurrenceReads {
  /** Whether any compact occurrence exists now (one probe of the table's first row). */
  present(): Promise<boolean>;
  /** When the compact occurrences were created (a scan of them), or undefined when there are none. */
  createdSpan(): Promise<CreatedSpan | undefined>;
  /** `db` as it reads the view: request matches go through the schedule's search row, key matches never hold. */
  readonly viewDb: ReadDb;
}

/** The compact-occurrence reads of a store, or undefined where it has none (SQLite before migration 15, PostgreSQL before 19). */
export function pendingOccurrenceReads(db: ReadDb): PendingOccurrenceReads | undefined {
  if (!db.features.pendingOccurrences) return undefined;
  const sql = `SELECT EXISTS (SELECT 1 FROM pending_occurrences) AS e`;
  const spanSql = `SELECT MIN(created_at) AS first, MAX(created_at) AS last FROM pending_occurrences`;
  // SQLite answers 1 or 0, PostgreSQL a boolean.
  const present = async () => {
    const e = (await db.query<{ e: number | boolean }>(sql))[0]?.e;
    return e === 1 || e === true;
  };
  return {
    present,
    createdSpan: async () => {
      if (!(await present())) return undefined;
      const [span] = await db.query<{ first: number | null; last: number | null }>(spanSql);
      return span?.first === null || span?.first === undefined || span.last === null ? undefined : { first: span.first, last: span.last };
    },
    viewDb: { dialect: viewDialect(db.dialect), features: db.features, query: (text, params) => db.query(text, params) },
  };
}

/**
 * The dialect of task-list conditions on the view. Without `searchRows`, the list's WHERE has no
 * search-row form (the view has no search rows) and reads keys through `keyContains`.
 */
function viewDialect(dialect: ReadDialect): ReadDialect {
  const rows = dialect.searchRows;
  return {
    ...dialect,
    searchRows: undefined,
    // The schedule row's search row holds the request every one of its occurrences has (SQLite's
    // search rows; PostgreSQL's request match is a condition on the schedule's task row).
    requestMatch: (terms) => {
      if (rows === undefined) {
        const match = dialect.requestMatch(terms);
        return { sql: `parent_task_id IN (SELECT id FROM tasks WHERE ${match.sql})`, params: match.params };
      }
      const ids = rows.requestIds(terms);
      return { sql: `parent_task_id IN (SELECT s.task_id FROM task_search_rows s WHERE s.id IN (${ids.sql}))`, params: ids.params };
    },
    // An occurrence has no task key.
    keyContains: () => ({ sql: '1 = 0', params: [] }),
    // Each alternative a condition on the view's own columns (a dialect's union of task-row reads does not apply).
    anyOf: (conditions) => `(${conditions.join(' OR ')})`,
  };
}
