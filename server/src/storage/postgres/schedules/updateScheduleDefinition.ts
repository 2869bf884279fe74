import type { PoolClient } from 'pg';
import type { TaskStatus } from '../../../contracts/index.js';
import type { ScheduleDefinitionChange } from '../../EngineStore.js';
import { taskStatusUpdate } from '../tasks/taskStatusUpdate.js';

/** A changed definition: new version, halt cleared (a schedule change releases a halt). The cursor is kept. */
export async function updateScheduleDefinition(c: PoolClient, ch: ScheduleDefinitionChange, from: TaskStatus): Promise<void> {
  await c.query(
    taskStatusUpdate({
      writer: 'upsertSchedule', to: { expr: '$6', statuses: [ch.status] }, from: [from],
      set: `type = $1, handler = $2, request = $3, queue = $4, audit_level = $5, scheduled_at = $7,
            misfire_policy = $8, time_zone_id = $9, schedule_version = $10, schedule_definition = $11, halt = NULL,
            traceparent = $13, tracestate = $14`,
      where: 't.id = $12',
    }),
    [ch.type, ch.handler, ch.request, ch.queue, ch.auditLevel, ch.status, ch.nextSlotAt, ch.misfirePolicy, ch.timeZoneId, ch.scheduleVersion, ch.definitionJson, ch.id, ch.traceparent, ch.tracestate],
  );
}
