import type { NewOccurrence } from '../../EngineStore.js';
import type { Database, Statement } from 'better-sqlite3';
import { insertInChunks } from './insertInChunks.js';
import { preparedStatement } from './preparedStatement.js';

const COLUMNS = `(id, type, handler, request, queue, status, audit_level, created_at, scheduled_at,
  is_recurring, occurrence_mode, time_zone_id, schedule_version, parent_task_id, nominal_slot_at, run_number,
  misfire_kind, missed_from, missed_through, missed_count, missed_count_is_exact, traceparent, tracestate)`;
const ROW = `(?, ?, ?, ?, ?, 'Pending', ?, ?, ?, 0, 'Durable', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

function statementFor(db: Database, rows: number): Statement {
  return preparedStatement(
    db,
    `INSERT INTO tasks ${COLUMNS} VALUES ${Array.from({ length: rows }, () => ROW).join(', ')}
     ON CONFLICT (parent_task_id, nominal_slot_at) WHERE parent_task_id IS NOT NULL DO NOTHING`,
  );
}

/** The rowid of the newest task row (0: none); rows inserted after this call get larger ones. */
export function lastTaskRowid(db: Database): number {
  return (preparedStatement(db, 'SELECT max(rowid) FROM tasks').pluck().get() as number | null) ?? 0;
}

/**
 * Inserts Pending occurrences, many rows per statement (a catch-up writes up to millions), with
 * `ids[i]` as the id of `rows[i]`. A slot that already has an occurrence is skipped by the unique
 * (parent_task_id, nominal_slot_at) index. Returns how many rows were written: in one write
 * transaction they are exactly the task rows above the `lastTaskRowid` read before the call.
 */
export function insertOccurrences(db: Database, rows: readonly NewOccurrence[], ids: readonly string[]): number {
  return insertInChunks(rows.length, (n) => statementFor(db, n), (i, out) => {
    const r = rows[i]!;
    out.push(
      ids[i], r.type, r.handler, r.request, r.queue, r.auditLevel, r.createdAt, r.scheduledAt, r.timeZoneId,
      r.scheduleVersion, r.parentTaskId, r.nominalSlotAt, r.runNumber, r.misfireKind,
      r.missedFrom, r.missedThrough, r.missedCount, r.missedCountIsExact, r.traceparent ?? null, r.tracestate ?? null,
    );
  });
}
