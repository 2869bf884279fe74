import type { Database } from 'better-sqlite3';
import type { AuditLevel } from '../../../contracts/index.js';
import type { ReadModelDeltas } from './readModels/ReadModelDeltas.js';
import { insertStatusAudit } from './schedules/insertStatusAudit.js';
import { preparedStatement } from './schedules/preparedStatement.js';

/** The task columns a compact occurrence fills (the rest keep their defaults, as for any occurrence). */
const COLUMNS = `id, type, handler, request, queue, status, audit_level, created_at, scheduled_at, is_recurring,
  occurrence_mode, time_zone_id, schedule_version, parent_task_id, nominal_slot_at, run_number, misfire_kind,
  missed_from, missed_through, missed_count, missed_count_is_exact, traceparent, tracestate`;
const VALUES = Array.from({ length: COLUMNS.split(',').length }, () => '?').join(', ');

interface CompactRow {
  seq: number;
  id: string;
  type: string;
  handler: string;
  request: string;
  queue: string;
  status: 'Pending';
  audit_level: AuditLevel;
  created_at: number;
  scheduled_at: number;
  is_recurring: number;
  occurrence_mode: string;
  time_zone_id: string | null;
  schedule_version: number;
  parent_task_id: string;
  nominal_slot_at: number;
  run_number: number;
  misfire_kind: string | null;
  missed_from: number | null;
  missed_through: number | null;
  missed_count: number | null;
  missed_count_is_exact: number | null;
  traceparent: string | null;
  tracestate: string | null;
}

/** Which compact occurrences to turn into task rows: a condition on `pending_occurrence_tasks` and its values. */
export type SpillSelection =
  | { due: number }
  | { scheduleId: string }
  | { ids: readonly string[] };

function condition(sel: SpillSelection): { sql: string; params: unknown[] } {
  if ('due' in sel) return { sql: 'scheduled_at <= ?', params: [sel.due] };
  if ('scheduleId' in sel) return { sql: 'schedule_rowid = (SELECT rowid FROM tasks WHERE id = ?)', params: [sel.scheduleId] };
  return { sql: 'id IN (SELECT value FROM json_each(?))', params: [JSON.stringify(sel.ids)] };
}

/** Whether the connection's schema has compact occurrences (migration 15). */
export function hasPendingOccurrences(db: Database): boolean {
  return (preparedStatement(db, `SELECT COUNT(*) FROM sqlite_master WHERE name = 'pending_occurrences'`).pluck().get() as number) > 0;
}

/**
 * Turns the selected compact occurrences (oldest due first, at most `limit`) into the task rows
 * they stand for, inside the caller's write transaction: the same row an occurrence written
 * whole would have, its Pending audit at its creation time, its search row. They were counted in
 * the read models when written, so they are not counted again. A compact occurrence whose slot
 * already has a task row is dropped (and uncounted). Returns how many task rows were written.
 *
 * Everything that is not a read and touches a compact occurrence (promotion when due, a change or
 * cancellation of its schedule, a management action on it) first turns it into a task row here,
 * so the writers of task rows never need to know the compact form.
 */
export function spillPendingOccurrences(db: Database, deltas: ReadModelDeltas, sel: SpillSelection, limit = -1): number {
  const where = condition(sel);
  const rows = preparedStatement(
    db,
    `SELECT seq, ${COLUMNS} FROM pending_occurrence_tasks WHERE ${where.sql} ORDER BY scheduled_at, seq LIMIT ?`,
  ).all(...where.params, limit) as CompactRow[];
  if (rows.length === 0) return 0;
  const insert = preparedStatement(
    db,
    `INSERT INTO tasks (${COLUMNS}) VALUES (${VALUES})
     ON CONFLICT (parent_task_id, nominal_slot_at) WHERE parent_task_id IS NOT NULL DO NOTHING`,
  );
  const remove = preparedStatement(db, 'DELETE FROM pending_occurrences WHERE seq = ?');
  let written = 0;
  for (const r of rows) {
    remove.run(r.seq);
    const result = insert.run(
      r.id, r.type, r.handler, r.request, r.queue, r.status, r.audit_level, r.created_at, r.scheduled_at, r.is_recurring,
      r.occurrence_mode, r.time_zone_id, r.schedule_version, r.parent_task_id, r.nominal_slot_at, r.run_number, r.misfire_kind,
      r.missed_from, r.missed_through, r.missed_count, r.missed_count_is_exact, r.traceparent, r.tracestate,
    );
    const group = { queue: r.queue, type: r.type, is_recurring: 0, is_occurrence: 1, created_at: r.created_at };
    if (result.changes !== 1) {
      deltas.droppedCompact(group);
      continue;
    }
    written++;
    insertStatusAudit(db, r.id, r.audit_level, 'Pending', r.created_at);
    deltas.spilled({ ...group, id: r.id, handler: r.handler, request: r.request, status: 'Pending', task_key: null, rowid: Number(result.lastInsertRowid) });
  }
  return written;
}
