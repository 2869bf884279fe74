import type { Database } from 'better-sqlite3';
import type { AuditLevel, MisfireKind } from '../../../contracts/index.js';
import { preparedStatement } from './preparedStatement.js';

export interface NewOccurrenceRow {
  id: string;
  type: string;
  handler: string;
  request: string;
  queue: string;
  auditLevel: AuditLevel;
  createdAt: number;
  scheduledAt: number;
  timeZoneId: string;
  scheduleVersion: number;
  parentTaskId: string;
  nominalSlotAt: number;
  runNumber: number;
  misfireKind: MisfireKind;
  missedFrom: number | null;
  missedThrough: number | null;
  missedCount: number | null;
  missedCountIsExact: number | null;
}

/**
 * Inserts a Pending occurrence; the unique index on (parent_task_id, nominal_slot_at) turns a
 * duplicate into a no-op. Returns whether the row was written.
 */
export function insertOccurrence(db: Database, row: NewOccurrenceRow): boolean {
  return (
    preparedStatement(
      db,
      `INSERT INTO tasks (id, type, handler, request, queue, status, audit_level, created_at, scheduled_at,
          is_recurring, occurrence_mode, time_zone_id, schedule_version, parent_task_id, nominal_slot_at, run_number,
          misfire_kind, missed_from, missed_through, missed_count, missed_count_is_exact)
       VALUES (@id, @type, @handler, @request, @queue, 'Pending', @auditLevel, @createdAt, @scheduledAt,
          0, 'Durable', @timeZoneId, @scheduleVersion, @parentTaskId, @nominalSlotAt, @runNumber,
          @misfireKind, @missedFrom, @missedThrough, @missedCount, @missedCountIsExact)
       ON CONFLICT (parent_task_id, nominal_slot_at) WHERE parent_task_id IS NOT NULL DO NOTHING`,
    ).run(row).changes === 1
  );
}
