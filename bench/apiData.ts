// The synthetic task population of bench:api, shared by the SQLite and PostgreSQL seeders:
// statuses, queues, types, durable schedules, occurrences, inline recurring rows and task keys
// spread over 90 days, ids time-ordered (UUIDv7) in creation order, five status audits each.
import { uuidV7 } from '../server/src/engine/uuidV7.js';

export const AUDITS_PER_TASK = 5;
export const SCHEDULES = 200;
const DAY = 86_400_000;

function mulberry32(seed: number) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(rnd: () => number, weighted: readonly (readonly [T, number])[]): T {
  let r = rnd();
  for (const [v, w] of weighted) {
    if ((r -= w) < 0) return v;
  }
  return weighted[weighted.length - 1]![0];
}

const STATUSES = [
  ['Completed', 0.8], ['Failed', 0.08], ['Cancelled', 0.02], ['Pending', 0.03], ['Queued', 0.04],
  ['InProgress', 0.01], ['WaitingQueue', 0.01], ['ServiceStopped', 0.01],
] as const;
const QUEUES = [['default', 0.5], ['mail', 0.2], ['reports', 0.15], ['billing', 0.1], ['low', 0.05]] as const;
const TYPES = Array.from({ length: 40 }, (_, i) => `Contoso.Area${i % 8}.Job${i}`);
const MISFIRE = ['ReplayAll', 'SkipOldest', 'Collapse', 'Skip'] as const;
export const FAILED_EXCEPTION = 'System.InvalidOperationException: boom\n   at Contoso.Job.Run()';

/** One task row, in the column order of TASK_COLUMNS. */
export type TaskValues = [
  id: string, type: string, handler: string, request: string, queue: string, status: string, taskKey: string | null,
  createdAt: number, scheduledAt: number | null, startedAt: number | null, lastExecutionAt: number | null,
  executionTimeMs: number | null, runCount: number, lastOutcome: string | null, exception: string | null, isRecurring: number,
  occurrenceMode: string | null, misfirePolicy: string | null, timeZoneId: string | null, scheduleVersion: number | null,
  halt: string | null, parentTaskId: string | null, nominalSlotAt: number | null, runNumber: number | null, misfireKind: string | null,
];

export const TASK_COLUMNS = `id, type, handler, request, queue, status, task_key, created_at, scheduled_at, started_at,
  last_execution_at, execution_time_ms, run_count, last_outcome, exception, is_recurring, occurrence_mode, misfire_policy,
  time_zone_id, schedule_version, halt, parent_task_id, nominal_slot_at, run_number, misfire_kind`;
export const TASK_COLUMN_COUNT = 25;

/**
 * The status path of a row (its audit trail): finished rows Queued → InProgress ×3 (retries) →
 * outcome; cancelled ones Pending → Queued ×2 → Pending → Cancelled; others Pending ×2 → Queued ×2
 * → status. Durable schedule rows have one audit (Pending). The exception is on the last entry.
 * As SQL over a task row `t` and a step `a.k` (0…4), for set-based generation.
 */
export const AUDIT_STATUS_SQL = `CASE
    WHEN t.status IN ('Completed', 'Failed') THEN CASE a.k WHEN 0 THEN 'Queued' WHEN 4 THEN t.status ELSE 'InProgress' END
    WHEN t.status = 'Cancelled' THEN CASE a.k WHEN 0 THEN 'Pending' WHEN 3 THEN 'Pending' WHEN 4 THEN 'Cancelled' ELSE 'Queued' END
    ELSE CASE WHEN a.k < 2 THEN 'Pending' WHEN a.k < 4 THEN 'Queued' ELSE t.status END
  END`;
/** Durable schedule rows (definitions) get a single audit entry. */
export const IS_SCHEDULE_SQL = `(t.occurrence_mode IS 'Durable' AND t.parent_task_id IS NULL)`;

/** Generates the tasks in creation order; `sampleIds` collects ids for the detail endpoint. */
export function* generateTasks(rows: number, now: number, sampleIds: string[]): Generator<TaskValues> {
  const rnd = mulberry32(42);
  const schedules: { id: string; type: string; queue: string; next: number; run: number }[] = [];
  for (let s = 0; s < SCHEDULES; s++) {
    const id = uuidV7(now - 91 * DAY);
    const type = TYPES[s % TYPES.length]!;
    const queue = pick(rnd, QUEUES);
    const halt = s % 50 === 0
      ? JSON.stringify({ atUtc: new Date(now - DAY).toISOString(), reason: 'OverflowCapExceeded', detectedAtLeast: 150, isExact: true, cursorUtc: new Date(now - 2 * DAY).toISOString(), scheduleVersion: 1 })
      : null;
    schedules.push({ id, type, queue, next: now - 90 * DAY, run: 0 });
    yield [id, type, `${type}Handler`, '{}', queue, 'Pending', `schedule-${s}`, now - 90 * DAY, now + 60_000, null, null, null, 0, null, null, 1,
      'Durable', MISFIRE[s % 4]!, 'Europe/Rome', 1, halt, null, null, null, null];
  }
  const sampleEvery = Math.max(1, Math.floor(rows / 1000));
  for (let i = SCHEDULES; i < rows; i++) {
    const created = now - Math.floor(((rows - i) / rows) * 90 * DAY);
    const id = uuidV7(created);
    const status = pick(rnd, STATUSES);
    const finished = status === 'Completed' || status === 'Failed';
    const dur = status === 'Completed' ? Math.round(5 + rnd() * 2000) : status === 'Failed' ? 0 : null;
    const started = finished || status === 'InProgress' || status === 'ServiceStopped' ? created + 50 : null;
    const ended = finished && dur !== null ? (started ?? created) + Math.max(dur, 3) : null;
    const isOccurrence = rnd() < 0.1;
    const recurring = !isOccurrence && rnd() < 0.0001;
    let type = TYPES[Math.floor(rnd() * TYPES.length)]!;
    let queue: string = pick(rnd, QUEUES);
    let parent: string | null = null;
    let slot: number | null = null;
    let runNumber: number | null = null;
    let kind: string | null = null;
    if (isOccurrence) {
      const sch = schedules[Math.floor(rnd() * SCHEDULES)]!;
      parent = sch.id;
      type = sch.type;
      queue = sch.queue;
      sch.next += 60_000 + Math.floor(rnd() * 60_000);
      slot = sch.next;
      runNumber = ++sch.run;
      kind = rnd() < 0.2 ? 'CatchUp' : 'OnTime';
    }
    const key = !isOccurrence && rnd() < 0.05 ? `order-${i}` : null;
    if (i % sampleEvery === 0 && sampleIds.length < 1000) sampleIds.push(id);
    yield [id, type, `${type}Handler`, `{"n":${i},"customer":"CUST-${i % 5000}","order":"ORD-${i}"}`, queue, status, key, created, created, started, ended, dur,
      finished ? 1 : 0, finished ? status : null, status === 'Failed' ? FAILED_EXCEPTION : null, recurring ? 1 : 0,
      isOccurrence ? 'Durable' : null, null, isOccurrence ? 'Europe/Rome' : null, isOccurrence ? 1 : null, null,
      parent, slot, runNumber, kind];
  }
}
