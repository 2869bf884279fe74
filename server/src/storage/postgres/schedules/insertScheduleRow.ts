import type { PoolClient } from 'pg';
import type { NewScheduleRow } from '../../EngineStore.js';

/** Inserts an active (Pending) durable schedule row, version 1. */
export async function insertScheduleRow(c: PoolClient, r: NewScheduleRow): Promise<void> {
  await c.query(
    `INSERT INTO tasks (id, type, handler, request, queue, status, task_key, audit_level, created_at, scheduled_at, is_recurring,
                        occurrence_mode, misfire_policy, time_zone_id, schedule_version, schedule_definition, cursor_at, traceparent, tracestate)
     VALUES ($1, $2, $3, $4, $5, 'Pending', $6, $7, $8, $9, 1, 'Durable', $10, $11, 1, $12, $13, $14, $15)`,
    [r.id, r.type, r.handler, r.request, r.queue, r.taskKey, r.auditLevel, r.createdAt, r.nextSlotAt, r.misfirePolicy, r.timeZoneId, r.definitionJson, r.cursorAt, r.traceparent, r.tracestate],
  );
}
