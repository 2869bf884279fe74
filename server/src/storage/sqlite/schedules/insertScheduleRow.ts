import type { NewScheduleRow } from '../../EngineStore.js';
import type { Database } from 'better-sqlite3';
import type { AuditLevel, MisfirePolicy } from '../../../contracts/index.js';
import { preparedStatement } from './preparedStatement.js';

export type { NewScheduleRow };

/** Inserts an active (Pending) durable schedule row, version 1. */
export function insertScheduleRow(db: Database, row: NewScheduleRow): void {
  preparedStatement(
    db,
    `INSERT INTO tasks (id, type, handler, request, queue, status, task_key, audit_level, created_at, scheduled_at,
        is_recurring, occurrence_mode, misfire_policy, time_zone_id, schedule_version, schedule_definition, cursor_at, traceparent, tracestate)
     VALUES (@id, @type, @handler, @request, @queue, 'Pending', @taskKey, @auditLevel, @createdAt, @nextSlotAt,
        1, 'Durable', @misfirePolicy, @timeZoneId, 1, @definitionJson, @cursorAt, @traceparent, @tracestate)`,
  ).run(row);
}
