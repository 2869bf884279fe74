import type { OperationResult } from '../../../contracts/index.js';
import type { MaterializeInput, NewOccurrence, MaterializeResult, ScheduleStore, UpsertInput } from '../../EngineStore.js';
import { cancelNotStartedTask } from './cancelNotStartedTask.js';
import { countOccurrencesAfter } from './countOccurrencesAfter.js';
import { insertOccurrences, lastTaskRowid } from './insertOccurrences.js';
import { countCompactAfter, insertCompactOccurrences, lastCompactSeq, scheduleRef, type CompactParent } from './insertCompactOccurrences.js';
import { hasPendingOccurrences, spillPendingOccurrences } from './spillPendingOccurrences.js';
import { preparedStatement } from './preparedStatement.js';
import { withoutWrittenSlots } from './withoutWrittenSlots.js';
import { insertScheduleRow } from './insertScheduleRow.js';
import { insertStatusAudit } from './insertStatusAudit.js';
import { insertStatusAuditsAfterRowid } from './insertStatusAudits.js';
import { requeueTerminalTask } from './requeueTerminalTask.js';
import { isScheduleRow } from './ScheduleRow.js';
import { selectDueScheduleIds } from './selectDueScheduleIds.js';
import { selectLastRunNumber } from './selectLastRunNumber.js';
import { selectOpenOccurrences } from './selectOpenOccurrences.js';
import { selectScheduleByKey } from './selectScheduleByKey.js';
import { selectTaskById } from './selectTaskById.js';
import { setScheduleHalt } from './setScheduleHalt.js';
import { setScheduleStatus } from './setScheduleStatus.js';
import { updateScheduleDefinition } from './updateScheduleDefinition.js';
import { updateScheduleProgress } from './updateScheduleProgress.js';
import { changeTaskRow } from '../readModels/changeTaskRow.js';
import type { ReadModelDeltas, TaskGroup } from '../readModels/readModelDeltas.js';
import { taskWriter } from '../readModels/taskWriter.js';
import type { ScheduleRow } from '../../EngineStore.js';
import { cancelStatusRefusal, noSuchTask, requeueRowCheck, requeueScheduleRefusal, requeued } from '../../common/scheduleOperationRefusals.js';
import type { SqliteStorage } from '../../Storage.js';
import { retryWhileBusy } from '../connection/retryWhileBusy.js';

/** Occurrences per schedule (all of them written). */
function countPerSchedule(rows: readonly NewOccurrence[]): Map<string, number> {
  const n = new Map<string, number>();
  for (const r of rows) n.set(r.parentTaskId, (n.get(r.parentTaskId) ?? 0) + 1);
  return n;
}

/** The read-model group of a schedule row or occurrence. */
function groupOf(row: ScheduleRow): TaskGroup {
  return { queue: row.queue, type: row.type, is_recurring: row.is_recurring, is_occurrence: row.parent_task_id === null ? 0 : 1, created_at: row.created_at };
}

/** The durable schedules' operations on SQLite: each one immediate transaction (through the task writer). */
export function createSqliteScheduleStore(storage: SqliteStorage, mapError: (err: unknown) => unknown = (e) => e): ScheduleStore {
  const db = storage.db;
  const write = taskWriter(db);
  const tx = async <T>(work: (deltas: ReadModelDeltas) => T): Promise<T> => {
    if (storage.closed) throw new Error('The storage is closed');
    try {
      return await retryWhileBusy(() => write(work));
    } catch (err) {
      throw mapError(err);
    }
  };

  const compactTable = hasPendingOccurrences(db);

  const group = (o: NewOccurrence) => ({ queue: o.queue, type: o.type, handler: o.handler, is_recurring: 0, is_occurrence: 1, created_at: o.createdAt });
  /** The first occurrence of each schedule among `rows` (its group stands for all of them). */
  const firstPerSchedule = (rows: readonly NewOccurrence[]) => {
    const first = new Map<string, NewOccurrence>();
    for (const o of rows) if (!first.has(o.parentTaskId)) first.set(o.parentTaskId, o);
    return first;
  };

  /**
   * Writes occurrences in slot order (ids assigned in that order), so that the slot-ordered and
   * id-ordered indexes are appended to rather than revisited once per schedule, in one `form`,
   * after dropping the slots their schedule already holds in the other form (each form's unique
   * slot index sees only its own table). Compact rows (migration 15): one small row each,
   * counted in the read models now, their audits and search rows written when they become task
   * rows. Task rows: everything follows from the rows written, in bulk (one 'Pending' audit per
   * row in one statement, their search rows from the task rows, the read-model counts once per
   * schedule). Returns the rows written.
   */
  const writeOccurrences = (
    collected: NewOccurrence[], form: 'compact' | 'tasks', parents: Map<string, CompactParent>, now: number, newId: () => string, deltas: ReadModelDeltas,
  ): number => {
    if (collected.length === 0) return 0;
    const sink = compactTable ? withoutWrittenSlots(db, collected, parents, form === 'compact' ? 'tasks' : 'compact') : collected;
    if (sink.length === 0) return 0;
    sink.sort((a, b) => a.nominalSlotAt - b.nominalSlotAt);
    const ids = sink.map(() => newId());
    const first = firstPerSchedule(sink);
    if (form === 'compact') {
      const afterSeq = lastCompactSeq(db);
      const written = insertCompactOccurrences(db, sink, ids, parents);
      if (written === 0) return 0;
      const perSchedule = written === sink.length ? countPerSchedule(sink) : countCompactAfter(db, afterSeq);
      for (const [scheduleId, n] of perSchedule) deltas.insertedCompact(group(first.get(scheduleId)!), n);
      return written;
    }
    const afterRowid = lastTaskRowid(db);
    const written = insertOccurrences(db, sink, ids);
    if (written === 0) return 0;
    const writtenPerSchedule = written === sink.length ? countPerSchedule(sink) : countOccurrencesAfter(db, afterRowid);
    for (const [scheduleId, n] of writtenPerSchedule) {
      const o = first.get(scheduleId)!;
      deltas.insertedMany({ ...group(o), request: o.request, status: 'Pending', task_key: null }, n, afterRowid);
    }
    insertStatusAuditsAfterRowid(db, afterRowid, 'Pending', now);
    return written;
  };

  /**
   * Writes a transaction's occurrences: compact when at least `compactFrom` of them stand for
   * missed work (misfire kind CatchUp: a catch-up), the few on-time slots of that catch-up
   * included, so that one transaction's rows keep one insertion order; otherwise as task rows, as
   * they always were. A steady tick (its slots on time) never takes the compact detour, however
   * many schedules it serves.
   */
  const flushOccurrences = (
    collected: NewOccurrence[], parents: Map<string, CompactParent>, compactFrom: number, now: number, newId: () => string, deltas: ReadModelDeltas,
  ): number => {
    let missed = 0;
    if (compactTable) for (const o of collected) if (o.misfireKind === 'CatchUp') missed++;
    const form = missed > 0 && missed >= compactFrom ? 'compact' : 'tasks';
    return writeOccurrences(collected, form, parents, now, newId, deltas);
  };

  return {
    findByKey: async (key) => selectScheduleByKey(db, key),
    findById: async (id) => selectTaskById(db, id),
    dueScheduleIds: async (until) => selectDueScheduleIds(db, until),

    materialize: async <T>(input: MaterializeInput<T>): Promise<MaterializeResult<T>> =>
      tx((deltas) => {
        const { now } = input;
        const sink: NewOccurrence[] = [];
        const parents = new Map<string, CompactParent>();
        const notes: T[] = [];
        for (let id = input.nextId(); id !== undefined; id = sink.length >= input.rowsPerTransaction ? undefined : input.nextId()) {
          const row = selectTaskById(db, id);
          if (!row || !isScheduleRow(row) || row.status !== 'Pending' || row.halt !== null) continue;
          const planned = input.plan(row, selectLastRunNumber(db, row.id, compactTable));
          if (planned === null) continue;
          notes.push(planned.note);
          const w = planned.write;
          if (w.kind === 'halt') {
            setScheduleHalt(db, row.id, w.halt, w.nextSlotAt);
          } else {
            for (const o of w.occurrences) sink.push(o);
            if (w.occurrences.length > 0) parents.set(row.id, { ref: scheduleRef(db, row.id), handler: row.handler });
            updateScheduleProgress(db, row.id, w.cursorAt, w.completed ? null : w.nextSlotAt, w.completed ? 'Completed' : 'Pending');
            if (w.completed) {
              deltas.moved(groupOf(row), row.status, 'Completed');
              insertStatusAudit(db, row.id, row.audit_level, 'Completed', now);
            }
          }
        }
        return { written: flushOccurrences(sink, parents, input.compactFrom ?? Number.POSITIVE_INFINITY, now, input.newId, deltas), notes };
      }),

    upsert: async (input: UpsertInput) =>
      tx((deltas) => {
        const existing = selectScheduleByKey(db, input.key);
        const decision = input.decide(existing, existing ? selectLastRunNumber(db, existing.id, compactTable) : 0);
        if (decision.kind === 'keep') return decision.id;
        if (decision.kind === 'insert') {
          const r = decision.row;
          insertScheduleRow(db, r);
          deltas.inserted({
            id: r.id, queue: r.queue, type: r.type, handler: r.handler, request: r.request, status: 'Pending', task_key: r.taskKey,
            is_recurring: 1, is_occurrence: 0, created_at: r.createdAt,
          });
          insertStatusAudit(db, decision.row.id, decision.row.auditLevel, 'Pending', input.now);
          return decision.row.id;
        }
        const c = decision.change;
        // The schedule's compact occurrences read its row: they become task rows before it changes.
        if (compactTable) spillPendingOccurrences(db, deltas, { scheduleId: c.id });
        changeTaskRow(db, deltas, c.id, () => {
          updateScheduleDefinition(db, c);
          return true;
        }, c.status);
        if (existing && c.status !== existing.status) insertStatusAudit(db, c.id, c.auditLevel, c.status, input.now);
        for (const o of selectOpenOccurrences(db, c.id)) {
          if (decision.cancelOccurrence(o) && cancelNotStartedTask(db, deltas, o.id)) {
            insertStatusAudit(db, o.id, o.audit_level, 'Cancelled', input.now);
          }
        }
        return c.id;
      }),

    cancel: async (id, now) =>
      tx((deltas): OperationResult => {
        const fresh = selectTaskById(db, id);
        if (!fresh) return noSuchTask();
        const refusal = cancelStatusRefusal(fresh);
        if (refusal) return refusal;
        if (compactTable) spillPendingOccurrences(db, deltas, { scheduleId: id });
        setScheduleStatus(db, id, 'Cancelled', null);
        deltas.moved(groupOf(fresh), fresh.status, 'Cancelled');
        if (fresh.halt !== null) setScheduleHalt(db, id, null);
        insertStatusAudit(db, id, fresh.audit_level, 'Cancelled', now);
        let cancelled = 0;
        for (const o of selectOpenOccurrences(db, id)) {
          if (cancelNotStartedTask(db, deltas, o.id)) {
            insertStatusAudit(db, o.id, o.audit_level, 'Cancelled', now);
            cancelled++;
          }
        }
        return {
          status: 'Succeeded',
          message: `Schedule cancelled; ${cancelled} pending occurrence(s) cancelled, running ones finish.`,
          taskId: id,
        };
      }),

    releaseHalt: async (id) =>
      tx(() => {
        const fresh = selectTaskById(db, id);
        if (!fresh || fresh.halt === null) return false;
        setScheduleHalt(db, id, null);
        return true;
      }),

    requeueOccurrence: async (occurrenceId, now) =>
      tx((deltas): OperationResult => {
        // A compact occurrence is Pending: as a task row it is refused as any Pending occurrence is.
        if (compactTable) spillPendingOccurrences(db, deltas, { ids: [occurrenceId] });
        const row = selectTaskById(db, occurrenceId);
        if (!row) return noSuchTask();
        const taskId = row.id;
        const check = requeueRowCheck(row);
        if (check.refused) return check.refused;
        const refusal = requeueScheduleRefusal(taskId, selectTaskById(db, check.scheduleId));
        if (refusal) return refusal;
        if (!requeueTerminalTask(db, taskId, now)) return { status: 'Conflict', message: 'The occurrence is no longer terminal.', taskId };
        deltas.moved(groupOf(row), row.status, 'Queued');
        insertStatusAudit(db, taskId, row.audit_level, 'Queued', now);
        return requeued(taskId);
      }),
  };
}
