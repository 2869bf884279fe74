import type { OperationResult } from '../../../contracts/index.js';
import type { PoolClient } from 'pg';
import { keptCounters } from '../readModels/keptCounters.js';
import type { AuditLevel } from '../../../contracts/index.js';
import type { MaterializeInput, MaterializeResult, NewOccurrence, ScheduleStore, UpsertInput } from '../../EngineStore.js';
import type { PostgresStorage } from '../PostgresStorage.js';
import { noSuchTask } from '../../common/scheduleOperationRefusals.js';
import { insertStatusAudits } from '../tasks/insertStatusAudits.js';
import { pgRequeueOccurrence } from '../management/requeueOccurrence.js';
import { pgCancelScheduleAndSkipped } from '../management/cancelSchedule.js';
import { cancelOpenOccurrences } from './cancelOpenOccurrences.js';
import { cancelSkippedOccurrences } from './cancelSkippedOccurrences.js';
import { insertCompactOccurrences, scheduleRefs, type CompactParent } from './insertCompactOccurrences.js';
import { releaseHalt } from './releaseHalt.js';
import { selectLastRunNumber } from './selectLastRunNumber.js';
import { spillPendingOccurrences } from './spillPendingOccurrences.js';
import { withoutWrittenSlots } from './withoutWrittenSlots.js';
import { insertOccurrences } from './insertOccurrences.js';
import { insertScheduleRow } from './insertScheduleRow.js';
import { isScheduleRow } from './ScheduleRow.js';
import { selectDueScheduleIds } from './selectDueScheduleIds.js';
import { selectScheduleByKey } from './selectScheduleByKey.js';
import { selectTaskById } from './selectTaskById.js';
import { setScheduleHalt } from './setScheduleHalt.js';
import { updateScheduleDefinition } from './updateScheduleDefinition.js';
import { updateScheduleProgress, type ScheduleProgress } from './updateScheduleProgress.js';

/**
 * The durable schedules' operations on PostgreSQL. Materialization claims schedule rows with
 * FOR UPDATE SKIP LOCKED (a schedule another instance is materializing is skipped, then re-read
 * fresh next time) and inserts occurrences ON CONFLICT on the unique (parent, slot) index: one
 * occurrence per slot whichever instance sees it. A catch-up (at least `compactFrom` missed
 * occurrences in one transaction) writes compact occurrences (migration 19), as SQLite does, and
 * appends their read-model deltas itself from the counters the storage keeps
 * (`readModels/keptCounters.ts`: those the database's triggers were installed with).
 */
export function createPostgresScheduleStore(
  storage: PostgresStorage, onWritten: (c: PoolClient) => Promise<void>,
): ScheduleStore {
  /**
   * Writes a transaction's occurrences in slot order (ids assigned in that order): compact when at
   * least `compactFrom` of them stand for missed work (misfire kind CatchUp), the catch-up's few
   * on-time slots included; otherwise as task rows. Slots their schedule already holds in the
   * other form are dropped first (each form's unique slot index sees only its own table).
   */
  async function writeOccurrences(
    c: PoolClient, collected: NewOccurrence[], handlers: Map<string, string>, compactFrom: number, now: number, newId: () => string,
  ): Promise<number> {
    if (collected.length === 0) return 0;
    let missed = 0;
    for (const o of collected) if (o.misfireKind === 'CatchUp') missed++;
    const form = missed > 0 && missed >= compactFrom ? 'compact' : 'tasks';
    // Task rows skip a slot already written as a task row by ON CONFLICT; COPY cannot, so compact
    // rows leave out the slots written in either form (the schedule rows are locked: no other writer).
    let sink = await withoutWrittenSlots(c, collected, form === 'compact' ? 'tasks' : 'compact');
    if (form === 'compact') sink = await withoutWrittenSlots(c, sink, 'compact');
    if (sink.length === 0) return 0;
    sink.sort((a, b) => a.nominalSlotAt - b.nominalSlotAt);
    const ids = sink.map(() => newId());
    if (form === 'tasks') return insertOccurrences(c, sink, ids, now);
    const refs = await scheduleRefs(c, [...handlers.keys()]);
    const parents = new Map<string, CompactParent>([...handlers].map(([id, handler]) => [id, { ref: refs.get(id)!, handler }]));
    return insertCompactOccurrences(c, sink, ids, parents, keptCounters(storage));
  }

  return {
    // Two transactions at once: each has its own server backend, and this process plans and encodes
    // one's rows while the server stores the other's (one instance's catch-up as fast as two instances').
    materializeConcurrency: 2,
    findByKey: (key) => selectScheduleByKey(storage, key),
    findById: (id) => selectTaskById(storage, id),
    dueScheduleIds: (until) => selectDueScheduleIds(storage, until),

    materialize: <T>(input: MaterializeInput<T>): Promise<MaterializeResult<T>> =>
      storage.transaction(async (c) => {
        const sink: NewOccurrence[] = [];
        const handlers = new Map<string, string>();
        const notes: T[] = [];
        const completed: { id: string; level: AuditLevel }[] = [];
        // The schedules' cursors move in one statement once every schedule is planned (their rows stay locked until commit).
        const progress: ScheduleProgress[] = [];
        for (let id = input.nextId(); id !== undefined; id = sink.length >= input.rowsPerTransaction ? undefined : input.nextId()) {
          const row = await selectTaskById(c, id, 'skipLocked');
          if (!row || !isScheduleRow(row) || row.status !== 'Pending' || row.halt !== null) continue;
          const planned = input.plan(row, await selectLastRunNumber(c, row.id));
          if (planned === null) continue;
          notes.push(planned.note);
          const w = planned.write;
          if (w.kind === 'halt') {
            await setScheduleHalt(c, row.id, w.halt, w.nextSlotAt);
          } else {
            sink.push(...w.occurrences);
            if (w.occurrences.length > 0) handlers.set(row.id, row.handler);
            progress.push({ id: row.id, cursorAt: w.cursorAt, nextSlotAt: w.nextSlotAt, completed: w.completed });
            if (w.completed) completed.push({ id: row.id, level: row.audit_level });
          }
        }
        await updateScheduleProgress(c, progress);
        await insertStatusAudits(c, completed.map((x) => ({ taskId: x.id, level: x.level, at: input.now, status: 'Completed' as const })));
        const written = await writeOccurrences(c, sink, handlers, input.compactFrom ?? Number.POSITIVE_INFINITY, input.now, input.newId);
        if (written > 0) await onWritten(c);
        return { written, notes };
      }),

    upsert: (input: UpsertInput) =>
      storage.transaction(async (c) => {
        await c.query(`SELECT pg_advisory_xact_lock(hashtext('svc_monitor.schedule:' || $1 || ':' || $2))`, [storage.schema, input.key]);
        const existing = await selectScheduleByKey(c, input.key, true);
        const decision = input.decide(existing, existing ? await selectLastRunNumber(c, existing.id) : 0);
        if (decision.kind === 'keep') return decision.id;
        if (decision.kind === 'insert') {
          const r = decision.row;
          await insertScheduleRow(c, r);
          await insertStatusAudits(c, [{ taskId: r.id, level: r.auditLevel, at: input.now, status: 'Pending' }]);
          return r.id;
        }
        const ch = decision.change;
        // The schedule's compact occurrences read its row: they become task rows before it changes.
        await spillPendingOccurrences(c, { scheduleId: ch.id });
        await updateScheduleDefinition(c, ch, existing?.status ?? ch.status);
        if (existing && ch.status !== existing.status) await insertStatusAudits(c, [{ taskId: ch.id, level: ch.auditLevel, at: input.now, status: ch.status }]);
        return { id: ch.id, skipped: (await cancelOpenOccurrences(c, ch.id, input.now, decision.cancelOccurrence)).skipped, which: decision.cancelOccurrence };
      }).then(async (out) => {
        if (typeof out === 'string') return out;
        if (out.skipped > 0) await cancelSkippedOccurrences(storage, out.id, input.now, out.which);
        return out.id;
      }),

    // The storage operation's cancel (management/cancelSchedule.ts), on the row of this id.
    cancel: (id, now) =>
      pgCancelScheduleAndSkipped(storage, (run) => storage.transaction(async (c) => {
        const fresh = await selectTaskById(c, id, 'forUpdate');
        return fresh ? run(c, fresh) : noSuchTask();
      }), now),

    releaseHalt: (id) => storage.transaction((c) => releaseHalt(c, id)),

    // The same operation as the monitoring's own (serve --database): one implementation.
    requeueOccurrence: (occurrenceId, now) =>
      storage.transaction(async (c): Promise<OperationResult> => {
        const result = await pgRequeueOccurrence(c, occurrenceId, now);
        if (result.status === 'Succeeded') await onWritten(c);
        return result;
      }),
  };
}
