import { randomUUID } from 'node:crypto';
import { cancelNotStartedTask } from '../../storage/sql/schedules/cancelNotStartedTask.js';
import { insertScheduleRow } from '../../storage/sql/schedules/insertScheduleRow.js';
import { insertStatusAudit } from '../../storage/sql/schedules/insertStatusAudit.js';
import { selectLastRunNumber } from '../../storage/sql/schedules/selectLastRunNumber.js';
import { selectOpenOccurrences } from '../../storage/sql/schedules/selectOpenOccurrences.js';
import { selectScheduleByKey } from '../../storage/sql/schedules/selectScheduleByKey.js';
import { updateScheduleDefinition } from '../../storage/sql/schedules/updateScheduleDefinition.js';
import type { EngineInternals } from '../EngineInternals.js';
import { assertFiresAfter, createSlotSource } from './createSlotSource.js';
import { normalizeDefinition } from './normalizeDefinition.js';
import { ScheduleOperationError, type DurableScheduleDefinition } from './ScheduleManager.js';
import { parseStoredDefinition, sameDefinition } from './StoredScheduleDefinition.js';

/**
 * schedules.upsert (DESIGN §4.3): creates the schedule row (version 1, cursor = now or just
 * before startAt), or changes it: a different definition bumps scheduleVersion, clears a halt,
 * keeps the cursor, and cancels not-yet-started occurrences of older versions whose slot the
 * new definition does not produce. The same definition again changes nothing.
 */
export function upsertSchedule(internals: EngineInternals, input: DurableScheduleDefinition): string {
  const { db } = internals;
  const now = internals.now();
  const before = input && typeof input.key === 'string' ? selectScheduleByKey(db, input.key) : undefined;
  const previousAnchor = before?.schedule_definition ? parseStoredDefinition(before.schedule_definition).anchorMs : null;
  const def = normalizeDefinition(input, now, previousAnchor);
  const source = createSlotSource(def);
  assertFiresAfter(source, def, now);
  const handler = internals.handlerNameOf(def.type) ?? `${def.type}Handler`;
  const queue = internals.resolveQueue(def.queue ?? undefined);
  const auditLevel = def.auditLevel ?? internals.defaultAuditLevel;
  const definitionJson = JSON.stringify(def);

  return db
    .transaction((): string => {
      const existing = selectScheduleByKey(db, input.key);
      if (!existing) {
        const id = randomUUID();
        const cursorAt = def.startAtMs !== null && def.startAtMs > now ? def.startAtMs - 1 : now;
        insertScheduleRow(db, {
          id,
          type: def.type,
          handler,
          request: def.request,
          queue,
          taskKey: input.key,
          auditLevel,
          createdAt: now,
          nextSlotAt: source.firstAfter(cursorAt),
          misfirePolicy: def.misfire.policy,
          timeZoneId: def.timeZone,
          definitionJson,
          cursorAt,
        });
        insertStatusAudit(db, id, auditLevel, 'Pending', now);
        return id;
      }
      if (existing.status === 'Cancelled') {
        throw new ScheduleOperationError(
          'Conflict',
          `Schedule "${input.key}" was cancelled; a cancelled schedule cannot be brought back (use a new key).`,
        );
      }
      const old = parseStoredDefinition(existing.schedule_definition!);
      if (sameDefinition(old, def)) return existing.id;

      const version = existing.schedule_version! + 1;
      const lastRun = selectLastRunNumber(db, existing.id);
      const nextSlot = source.firstAfter(existing.cursor_at!);
      const exhausted = nextSlot === null || (def.maxRuns !== null && lastRun >= def.maxRuns);
      const status = exhausted ? 'Completed' : 'Pending';
      updateScheduleDefinition(db, {
        id: existing.id,
        type: def.type,
        handler,
        request: def.request,
        queue,
        auditLevel,
        status,
        nextSlotAt: exhausted ? null : nextSlot,
        misfirePolicy: def.misfire.policy,
        timeZoneId: def.timeZone,
        scheduleVersion: version,
        definitionJson,
      });
      if (status !== existing.status) insertStatusAudit(db, existing.id, auditLevel, status, now);
      for (const o of selectOpenOccurrences(db, existing.id)) {
        if (o.schedule_version < version && !source.produces(o.nominal_slot_at) && cancelNotStartedTask(db, o.id)) {
          insertStatusAudit(db, o.id, o.audit_level, 'Cancelled', now);
        }
      }
      return existing.id;
    })
    .immediate();
}
