import type { OperationResult } from '../../../contracts/index.js';
import type { PoolClient } from 'pg';
import type { AuditLevel } from '../../../contracts/index.js';
import type { MaterializeInput, MaterializeResult, NewOccurrence, ScheduleRow, ScheduleStore, UpsertInput } from '../../EngineStore.js';
import type { PostgresStorage } from '../PostgresStorage.js';
import { auditAllows } from '../../common/auditAllows.js';
import { cancelStatusRefusal, noSuchTask } from '../../common/scheduleOperationRefusals.js';
import { insertStatusAudits } from '../tasks/insertStatusAudits.js';
import { taskStatusUpdate } from '../tasks/taskStatusUpdate.js';
import { pgRequeueOccurrence } from '../management/requeueOccurrence.js';
import { cancelOpenOccurrences } from './cancelOpenOccurrences.js';
import { cancelSchedule, scheduleCancelledMessage } from './cancelSchedule.js';
import { insertCompactOccurrences, scheduleRefs, type CompactParent } from './insertCompactOccurrences.js';
import { releaseHalt } from './releaseHalt.js';
import { selectLastRunNumber } from './selectLastRunNumber.js';
import { spillPendingOccurrences } from './spillPendingOccurrences.js';
import { withoutWrittenSlots } from './withoutWrittenSlots.js';

const COLUMNS = `id, type, handler, request, queue, status, task_key, audit_level, is_recurring, occurrence_mode, schedule_version,
  schedule_definition, cursor_at, halt, parent_task_id, scheduled_at, created_at, traceparent, tracestate`;
const IS_SCHEDULE = `is_recurring = 1 AND occurrence_mode = 'Durable' AND parent_task_id IS NULL`;
/** The audit levels that record a transition without an error (a new occurrence's Pending). */
const PENDING_AUDITED = (['Full', 'ErrorsOnly', 'None'] as const).filter((level) => auditAllows(level, null));
const isScheduleRow = (r: ScheduleRow) => r.is_recurring === 1 && r.occurrence_mode === 'Durable' && r.parent_task_id === null;

const lastRunNumber = selectLastRunNumber;

/**
 * The durable schedules' operations on PostgreSQL. Materialization claims schedule rows with
 * FOR UPDATE SKIP LOCKED (a schedule another instance is materializing is skipped, then re-read
 * fresh next time) and inserts occurrences ON CONFLICT on the unique (parent, slot) index: one
 * occurrence per slot whichever instance sees it. A catch-up (at least `compactFrom` missed
 * occurrences in one transaction) writes compact occurrences (migration 19), as SQLite does.
 */
export function createPostgresScheduleStore(storage: PostgresStorage, onWritten: (c: PoolClient) => Promise<void>): ScheduleStore {
  const one = async (sql: string, params: unknown[]) => (await storage.query<ScheduleRow>(sql, params)).rows[0];

  async function insertOccurrences(c: PoolClient, occ: (NewOccurrence & { id: string })[], now: number): Promise<number> {
    if (occ.length === 0) return 0;
    const col = <T>(f: (o: NewOccurrence & { id: string }) => T) => occ.map(f);
    // One statement: the rows, and the Pending audit of each row written where its level records it.
    const { rows } = await c.query<{ written: number }>(
      `WITH written AS (
       INSERT INTO tasks (id, type, handler, request, queue, status, audit_level, created_at, scheduled_at, is_recurring, occurrence_mode,
                          time_zone_id, schedule_version, parent_task_id, nominal_slot_at, run_number, misfire_kind, missed_from,
                          missed_through, missed_count, missed_count_is_exact, traceparent, tracestate)
       SELECT id, type, handler, request, queue, 'Pending', audit_level, created_at, scheduled_at, 0, 'Durable', tz, version, parent,
              slot, run_number, kind, mfrom, mthrough, mcount, mexact, tparent, tstate
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[], $9::text[],
                     $10::int[], $11::text[], $12::bigint[], $13::int[], $14::text[], $15::bigint[], $16::bigint[], $17::int[], $18::int[],
                     $19::text[], $20::text[])
              WITH ORDINALITY AS o(id, type, handler, request, queue, audit_level, created_at, scheduled_at, tz, version, parent, slot,
                                   run_number, kind, mfrom, mthrough, mcount, mexact, tparent, tstate, ord)
        ORDER BY ord
       ON CONFLICT (parent_task_id, nominal_slot_at) WHERE parent_task_id IS NOT NULL DO NOTHING
       RETURNING id, audit_level
       ), audited AS (
         INSERT INTO status_audit (task_id, updated_at, new_status)
         SELECT id, $21::bigint, 'Pending' FROM written WHERE audit_level = ANY($22::text[])
       )
       SELECT COUNT(*)::int AS written FROM written`,
      [
        col((o) => o.id), col((o) => o.type), col((o) => o.handler), col((o) => o.request), col((o) => o.queue), col((o) => o.auditLevel),
        col((o) => o.createdAt), col((o) => o.scheduledAt), col((o) => o.timeZoneId), col((o) => o.scheduleVersion), col((o) => o.parentTaskId),
        col((o) => o.nominalSlotAt), col((o) => o.runNumber), col((o) => o.misfireKind), col((o) => o.missedFrom), col((o) => o.missedThrough),
        col((o) => o.missedCount), col((o) => o.missedCountIsExact), col((o) => o.traceparent ?? null), col((o) => o.tracestate ?? null),
        now, PENDING_AUDITED,
      ],
    );
    return rows[0]!.written;
  }

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
    if (form === 'tasks') return insertOccurrences(c, sink.map((o, i) => ({ ...o, id: ids[i]! })), now);
    const refs = await scheduleRefs(c, [...handlers.keys()]);
    const parents = new Map<string, CompactParent>([...handlers].map(([id, handler]) => [id, { ref: refs.get(id)!, handler }]));
    return insertCompactOccurrences(c, sink, ids, parents);
  }

  return {
    findByKey: (key) => one(`SELECT ${COLUMNS} FROM tasks WHERE task_key = $1 AND ${IS_SCHEDULE} ORDER BY created_at DESC, seq DESC LIMIT 1`, [key]),
    findById: (id) => one(`SELECT ${COLUMNS} FROM tasks WHERE id = $1`, [id]),
    dueScheduleIds: async (until) =>
      (
        await storage.query<{ id: string }>(
          `SELECT id FROM tasks WHERE ${IS_SCHEDULE} AND status = 'Pending' AND halt IS NULL AND scheduled_at <= $1 ORDER BY scheduled_at`,
          [until],
        )
      ).rows.map((r) => r.id),

    materialize: <T>(input: MaterializeInput<T>): Promise<MaterializeResult<T>> =>
      storage.transaction(async (c) => {
        const sink: NewOccurrence[] = [];
        const handlers = new Map<string, string>();
        const notes: T[] = [];
        let consumed = 0;
        const completed: { id: string; level: AuditLevel }[] = [];
        for (const id of input.ids) {
          consumed++;
          const row = (await c.query<ScheduleRow>(`SELECT ${COLUMNS} FROM tasks WHERE id = $1 FOR UPDATE SKIP LOCKED`, [id])).rows[0];
          if (!row || !isScheduleRow(row) || row.status !== 'Pending' || row.halt !== null) continue;
          const planned = input.plan(row, await lastRunNumber(c, row.id));
          if (planned === null) continue;
          notes.push(planned.note);
          const w = planned.write;
          if (w.kind === 'halt') {
            await c.query(`UPDATE tasks SET halt = $1, scheduled_at = $2 WHERE id = $3`, [JSON.stringify(w.halt), w.nextSlotAt, row.id]);
          } else {
            sink.push(...w.occurrences);
            if (w.occurrences.length > 0) handlers.set(row.id, row.handler);
            await c.query(
              taskStatusUpdate({
                writer: 'materializeSchedule', to: { expr: '$3', statuses: ['Pending', 'Completed'] }, from: ['Pending'],
                set: `cursor_at = $1, scheduled_at = $2, execution_time_ms = CASE WHEN $3 = 'Completed' THEN 0 ELSE t.execution_time_ms END`, where: 't.id = $4',
              }),
              [w.cursorAt, w.completed ? null : w.nextSlotAt, w.completed ? 'Completed' : 'Pending', row.id],
            );
            if (w.completed) completed.push({ id: row.id, level: row.audit_level });
          }
          if (sink.length >= input.rowsPerTransaction) break;
        }
        await insertStatusAudits(c, completed.map((x) => ({ taskId: x.id, level: x.level, at: input.now, status: 'Completed' as const })));
        const written = await writeOccurrences(c, sink, handlers, input.compactFrom ?? Number.POSITIVE_INFINITY, input.now, input.newId);
        if (written > 0) await onWritten(c);
        return { consumed, written, notes };
      }),

    upsert: (input: UpsertInput) =>
      storage.transaction(async (c) => {
        await c.query(`SELECT pg_advisory_xact_lock(hashtext('svc_monitor.schedule:' || $1 || ':' || $2))`, [storage.schema, input.key]);
        const existing = (
          await c.query<ScheduleRow>(`SELECT ${COLUMNS} FROM tasks WHERE task_key = $1 AND ${IS_SCHEDULE} ORDER BY created_at DESC, seq DESC LIMIT 1 FOR UPDATE`, [input.key])
        ).rows[0];
        const decision = input.decide(existing, existing ? await lastRunNumber(c, existing.id) : 0);
        if (decision.kind === 'keep') return decision.id;
        if (decision.kind === 'insert') {
          const r = decision.row;
          await c.query(
            `INSERT INTO tasks (id, type, handler, request, queue, status, task_key, audit_level, created_at, scheduled_at, is_recurring,
                                occurrence_mode, misfire_policy, time_zone_id, schedule_version, schedule_definition, cursor_at, traceparent, tracestate)
             VALUES ($1, $2, $3, $4, $5, 'Pending', $6, $7, $8, $9, 1, 'Durable', $10, $11, 1, $12, $13, $14, $15)`,
            [r.id, r.type, r.handler, r.request, r.queue, r.taskKey, r.auditLevel, r.createdAt, r.nextSlotAt, r.misfirePolicy, r.timeZoneId, r.definitionJson, r.cursorAt, r.traceparent, r.tracestate],
          );
          await insertStatusAudits(c, [{ taskId: r.id, level: r.auditLevel, at: input.now, status: 'Pending' }]);
          return r.id;
        }
        const ch = decision.change;
        // The schedule's compact occurrences read its row: they become task rows before it changes.
        await spillPendingOccurrences(c, { scheduleId: ch.id });
        await c.query(
          taskStatusUpdate({
            writer: 'upsertSchedule', to: { expr: '$6', statuses: [ch.status] }, from: [existing?.status ?? ch.status],
            set: `type = $1, handler = $2, request = $3, queue = $4, audit_level = $5, scheduled_at = $7,
                  misfire_policy = $8, time_zone_id = $9, schedule_version = $10, schedule_definition = $11, halt = NULL,
                  traceparent = $13, tracestate = $14`,
            where: 't.id = $12',
          }),
          [ch.type, ch.handler, ch.request, ch.queue, ch.auditLevel, ch.status, ch.nextSlotAt, ch.misfirePolicy, ch.timeZoneId, ch.scheduleVersion, ch.definitionJson, ch.id, ch.traceparent, ch.tracestate],
        );
        if (existing && ch.status !== existing.status) await insertStatusAudits(c, [{ taskId: ch.id, level: ch.auditLevel, at: input.now, status: ch.status }]);
        await cancelOpenOccurrences(c, ch.id, input.now, decision.cancelOccurrence);
        return ch.id;
      }),

    cancel: (id, now) =>
      storage.transaction(async (c): Promise<OperationResult> => {
        const fresh = (await c.query<ScheduleRow>(`SELECT ${COLUMNS} FROM tasks WHERE id = $1 FOR UPDATE`, [id])).rows[0];
        if (!fresh) return noSuchTask();
        const refused = cancelStatusRefusal(fresh);
        if (refused) return refused;
        const cancelled = await cancelSchedule(c, fresh, now);
        return { status: 'Succeeded', message: scheduleCancelledMessage(cancelled), taskId: id };
      }),

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
