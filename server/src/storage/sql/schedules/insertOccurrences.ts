import type { NewOccurrence } from '../../EngineStore.js';
import type { Database, Statement } from 'better-sqlite3';
import type { AuditLevel, MisfireKind } from '../../../contracts/index.js';
import { preparedStatement } from './preparedStatement.js';

/** A new occurrence with its id. */
export interface NewOccurrenceRow extends NewOccurrence {
  id: string;
}

const COLUMNS = `(id, type, handler, request, queue, status, audit_level, created_at, scheduled_at,
  is_recurring, occurrence_mode, time_zone_id, schedule_version, parent_task_id, nominal_slot_at, run_number,
  misfire_kind, missed_from, missed_through, missed_count, missed_count_is_exact, traceparent, tracestate)`;
const ROW = `(?, ?, ?, ?, ?, 'Pending', ?, ?, ?, 0, 'Durable', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
const CHUNK = 64;

function statementFor(db: Database, rows: number): Statement {
  return preparedStatement(
    db,
    `INSERT INTO tasks ${COLUMNS} VALUES ${Array.from({ length: rows }, () => ROW).join(', ')}
     ON CONFLICT (parent_task_id, nominal_slot_at) WHERE parent_task_id IS NOT NULL DO NOTHING RETURNING id`,
  );
}

/**
 * Inserts Pending occurrences, many rows per statement (a catch-up writes up to millions).
 * A slot that already has an occurrence is skipped by the unique (parent_task_id,
 * nominal_slot_at) index. Returns the ids actually written.
 */
export function insertOccurrences(db: Database, rows: readonly NewOccurrenceRow[]): string[] {
  const written: string[] = [];
  for (let start = 0; start < rows.length; start += CHUNK) {
    const chunk = rows.slice(start, start + CHUNK);
    const params: unknown[] = [];
    for (const r of chunk) {
      params.push(
        r.id, r.type, r.handler, r.request, r.queue, r.auditLevel, r.createdAt, r.scheduledAt, r.timeZoneId,
        r.scheduleVersion, r.parentTaskId, r.nominalSlotAt, r.runNumber, r.misfireKind,
        r.missedFrom, r.missedThrough, r.missedCount, r.missedCountIsExact, r.traceparent ?? null, r.tracestate ?? null,
      );
    }
    for (const id of statementFor(db, chunk.length).pluck().all(params) as string[]) written.push(id);
  }
  return written;
}
