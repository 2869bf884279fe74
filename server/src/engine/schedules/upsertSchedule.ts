import { loadTracing, providerRegistered, startDispatchSpan } from '../tracing.js';
import { hasUnstorable } from '../storableText.js';
import { uuidV7 } from '../uuidV7.js';
import type { UpsertDecision } from '../../storage/EngineStore.js';
import type { EngineInternals } from '../EngineInternals.js';
import { assertFiresAfter, createSlotSource } from './createSlotSource.js';
import { normalizeDefinition } from './normalizeDefinition.js';
import { ScheduleOperationError, type DurableScheduleDefinition } from './ScheduleManager.js';
import { parseStoredDefinition, sameDefinition } from './StoredScheduleDefinition.js';

/**
 * schedules.upsert: creates the schedule row (version 1, cursor = now or just before startAt),
 * or changes it: a different definition bumps scheduleVersion, clears a halt, keeps the cursor,
 * and cancels not-yet-started occurrences of older versions whose slot the new definition does
 * not produce. The same definition again changes nothing.
 */
export async function upsertSchedule(internals: EngineInternals, input: DurableScheduleDefinition): Promise<string> {
  const { schedules } = internals.store;
  const now = internals.now();
  // A key no store keeps names no schedule: normalizeDefinition refuses it before any store call.
  const before = input && typeof input.key === 'string' && input.key !== '' && !hasUnstorable(input.key) ? await schedules.findByKey(input.key) : undefined;
  const previousAnchor = before?.schedule_definition ? parseStoredDefinition(before.schedule_definition).anchorMs : null;
  const def = normalizeDefinition(input, now, previousAnchor);
  const source = createSlotSource(def);
  assertFiresAfter(source, def, now);
  const handler = internals.handlerNameOf(def.type) ?? `${def.type}Handler`;
  const queue = internals.resolveQueue(def.queue ?? undefined);
  const auditLevel = def.auditLevel ?? internals.defaultAuditLevel;
  const definitionJson = JSON.stringify(def);
  // The upsert is the schedule's origin: its occurrences' runs link to this span.
  const otel = providerRegistered() ? await loadTracing() : undefined;
  const span = otel ? startDispatchSpan(otel, { id: input.key, type: def.type, queue }, 'upsert') : undefined;
  const trace = { traceparent: span?.traceparent ?? null, tracestate: span?.tracestate ?? null };
  try {
    const id = await upsertRow();
    span?.end();
    return id;
  } catch (err) {
    span?.end(err);
    throw err;
  }

  function upsertRow(): Promise<string> {
    return schedules.upsert({
      key: input.key,
      now,
      decide: (existing, lastRun): UpsertDecision => {
        if (!existing) {
          const cursorAt = def.startAtMs !== null && def.startAtMs > now ? def.startAtMs - 1 : now;
          return {
            kind: 'insert',
            row: {
              id: uuidV7(),
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
              ...trace,
            },
          };
        }
        if (existing.status === 'Cancelled') {
          throw new ScheduleOperationError(
            'Conflict',
            `Schedule "${input.key}" was cancelled; a cancelled schedule cannot be brought back (use a new key).`,
          );
        }
        const old = parseStoredDefinition(existing.schedule_definition!);
        if (sameDefinition(old, def)) return { kind: 'keep', id: existing.id };
        const version = existing.schedule_version! + 1;
        const nextSlot = source.firstAfter(existing.cursor_at!);
        const exhausted = nextSlot === null || (def.maxRuns !== null && lastRun >= def.maxRuns);
        return {
          kind: 'update',
          change: {
            id: existing.id,
            type: def.type,
            handler,
            request: def.request,
            queue,
            auditLevel,
            status: exhausted ? 'Completed' : 'Pending',
            nextSlotAt: exhausted ? null : nextSlot,
            misfirePolicy: def.misfire.policy,
            timeZoneId: def.timeZone,
            scheduleVersion: version,
            definitionJson,
            ...trace,
          },
          cancelOccurrence: (o) => o.schedule_version < version && !source.produces(o.nominal_slot_at),
        };
      },
    });
  }
}
