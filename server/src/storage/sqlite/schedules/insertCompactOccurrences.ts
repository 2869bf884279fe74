import type { Database, Statement } from 'better-sqlite3';
import type { NewOccurrence } from '../../EngineStore.js';
import { insertInChunks } from './insertInChunks.js';
import { preparedStatement } from './preparedStatement.js';

const COLUMNS = `(id, schedule_ref, nominal_slot_at, scheduled_at, created_at, run_number, schedule_version, handler,
  misfire_kind, missed_from, missed_through, missed_count, missed_count_is_exact)`;
const ROW = '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';

function statementFor(db: Database, rows: number): Statement {
  return preparedStatement(
    db,
    `INSERT INTO pending_occurrences ${COLUMNS} VALUES ${Array.from({ length: rows }, () => ROW).join(', ')}
     ON CONFLICT (schedule_ref, nominal_slot_at) DO NOTHING`,
  );
}

/** What a compact occurrence reads from its schedule: its number (`occurrence_schedules`) and handler. */
export interface CompactParent {
  ref: number;
  handler: string;
}

/** The schedule's number for its compact occurrences, given on first use. */
export function scheduleRef(db: Database, scheduleId: string): number {
  preparedStatement(db, 'INSERT OR IGNORE INTO occurrence_schedules (schedule_id) VALUES (?)').run(scheduleId);
  return preparedStatement(db, 'SELECT ref FROM occurrence_schedules WHERE schedule_id = ?').pluck().get(scheduleId) as number;
}

/** The seq of the newest compact occurrence (0: none); rows inserted after this call get larger ones. */
export function lastCompactSeq(db: Database): number {
  return (preparedStatement(db, 'SELECT max(seq) FROM pending_occurrences').pluck().get() as number | null) ?? 0;
}

/**
 * Inserts Pending occurrences in their compact form (migration 15), many rows per statement, with
 * `ids[i]` as the id of `rows[i]`; `parents` gives each schedule's number and handler (an
 * occurrence's handler is stored only where it differs). A slot that already has a compact
 * occurrence is skipped. Returns how many rows were written.
 */
export function insertCompactOccurrences(
  db: Database,
  rows: readonly NewOccurrence[],
  ids: readonly string[],
  parents: ReadonlyMap<string, CompactParent>,
): number {
  return insertInChunks(rows.length, (n) => statementFor(db, n), (i, out) => {
    const r = rows[i]!;
    const parent = parents.get(r.parentTaskId)!;
    out.push(
      ids[i], parent.ref, r.nominalSlotAt, r.scheduledAt, r.createdAt, r.runNumber, r.scheduleVersion,
      r.handler === parent.handler ? null : r.handler,
      r.misfireKind, r.missedFrom, r.missedThrough, r.missedCount, r.missedCountIsExact,
    );
  });
}

/** Compact occurrences written after `afterSeq`, per schedule id. */
export function countCompactAfter(db: Database, afterSeq: number): Map<string, number> {
  const rows = preparedStatement(
    db,
    `SELECT r.schedule_id AS id, COUNT(*) AS n FROM pending_occurrences p JOIN occurrence_schedules r ON r.ref = p.schedule_ref
      WHERE p.seq > ? GROUP BY p.schedule_ref`,
  ).all(afterSeq) as { id: string; n: number }[];
  return new Map(rows.map((r) => [r.id, r.n]));
}
