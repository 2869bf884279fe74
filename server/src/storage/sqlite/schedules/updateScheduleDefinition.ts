import type { ScheduleDefinitionChange } from '../../EngineStore.js';
import type { Database } from 'better-sqlite3';
import type { AuditLevel, MisfirePolicy, TaskStatus } from '../../../contracts/index.js';
import { preparedStatement } from './preparedStatement.js';

export type { ScheduleDefinitionChange };

/** A changed definition: new version, halt cleared (a schedule change releases a halt). The cursor is kept. */
export function updateScheduleDefinition(db: Database, change: ScheduleDefinitionChange): void {
  preparedStatement(
    db,
    `UPDATE tasks SET type = @type, handler = @handler, request = @request, queue = @queue, audit_level = @auditLevel,
        status = @status, scheduled_at = @nextSlotAt, misfire_policy = @misfirePolicy, time_zone_id = @timeZoneId,
        schedule_version = @scheduleVersion, schedule_definition = @definitionJson, halt = NULL,
        traceparent = @traceparent, tracestate = @tracestate
      WHERE id = @id`,
  ).run(change);
}
