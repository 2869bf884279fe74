import type { Database } from 'better-sqlite3';
import type { ReadModelDeltas } from '../readModels/readModelDeltas.js';
import { lastTaskRowid } from './insertOccurrences.js';
import { insertStatusAuditsAfterRowid } from './insertStatusAudits.js';
import { preparedStatement } from './preparedStatement.js';

/** The task columns a compact occurrence fills (the rest keep their defaults, as for any occurrence). */
const COLUMNS = `id, type, handler, request, queue, status, audit_level, created_at, scheduled_at, is_recurring,
  occurrence_mode, time_zone_id, schedule_version, parent_task_id, nominal_slot_at, run_number, misfire_kind,
  missed_from, missed_through, missed_count, missed_count_is_exact, traceparent, tracestate`;

/** Which compact occurrences to turn into task rows. */
export type SpillSelection =
  | { due: number }
  | { scheduleId: string }
  | { ids: readonly string[] };

function condition(sel: SpillSelection): { sql: string; params: unknown[] } {
  if ('due' in sel) return { sql: 'scheduled_at <= ?', params: [sel.due] };
  if ('scheduleId' in sel) return { sql: 'schedule_ref = (SELECT ref FROM occurrence_schedules WHERE schedule_id = ?)', params: [sel.scheduleId] };
  return { sql: 'id IN (SELECT value FROM json_each(?))', params: [JSON.stringify(sel.ids)] };
}

/** Whether the connection's schema has compact occurrences (migration 15). */
export function hasPendingOccurrences(db: Database): boolean {
  return (preparedStatement(db, `SELECT COUNT(*) FROM sqlite_master WHERE name = 'pending_occurrences'`).pluck().get() as number) > 0;
}

interface Selected {
  seq: number;
  id: string;
  queue: string;
  type: string;
  created_at: number;
}

/**
 * Turns the selected compact occurrences (oldest due first, at most `limit`) into the task rows
 * they stand for, inside the caller's write transaction, in bulk: the same rows an occurrence
 * written whole would have (one INSERT … SELECT from `pending_occurrence_tasks`), their Pending
 * audits at their creation time (one statement), their search rows (the bulk pass at commit).
 * They were counted in the read models when written, so they are not counted again. One whose
 * slot already has a task row is dropped and uncounted. Returns how many task rows were written.
 *
 * Everything that is not a read and touches a compact occurrence (promotion when due, a change or
 * cancellation of its schedule, a management action on it) first turns it into a task row here,
 * so the writers of task rows never need to know the compact form. No task row may be recorded
 * with `ReadModelDeltas.inserted` after this in the same transaction (it would get two search rows).
 */
export function spillPendingOccurrences(db: Database, deltas: ReadModelDeltas, sel: SpillSelection, limit = -1): number {
  // One seek answers the common case, no compact row at all (the selection below joins three tables).
  if (preparedStatement(db, 'SELECT EXISTS (SELECT 1 FROM pending_occurrences)').pluck().get() === 0) return 0;
  const where = condition(sel);
  const selected = preparedStatement(
    db,
    `SELECT seq, id, queue, type, created_at FROM pending_occurrence_tasks WHERE ${where.sql} ORDER BY scheduled_at, seq LIMIT ?`,
  ).all(...where.params, limit) as Selected[];
  if (selected.length === 0) return 0;
  const seqs = JSON.stringify(selected.map((r) => r.seq));
  const afterRowid = lastTaskRowid(db);
  const written = preparedStatement(
    db,
    `INSERT INTO tasks (${COLUMNS})
       SELECT ${COLUMNS} FROM pending_occurrence_tasks WHERE seq IN (SELECT value FROM json_each(?)) ORDER BY scheduled_at, seq
     ON CONFLICT (parent_task_id, nominal_slot_at) WHERE parent_task_id IS NOT NULL DO NOTHING`,
  ).run(seqs).changes;
  preparedStatement(db, 'DELETE FROM pending_occurrences WHERE seq IN (SELECT value FROM json_each(?))').run(seqs);
  if (written < selected.length) {
    const kept = new Set(preparedStatement(db, 'SELECT id FROM tasks WHERE rowid > ?').pluck().all(afterRowid) as string[]);
    for (const r of selected) {
      if (!kept.has(r.id)) deltas.droppedCompact({ queue: r.queue, type: r.type, is_recurring: 0, is_occurrence: 1, created_at: r.created_at });
    }
  }
  if (written === 0) return 0;
  insertStatusAuditsAfterRowid(db, afterRowid, 'Pending', null);
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const r of selected) {
    if (r.created_at < min) min = r.created_at;
    if (r.created_at > max) max = r.created_at;
  }
  deltas.spilledMany(afterRowid, min, max);
  return written;
}
