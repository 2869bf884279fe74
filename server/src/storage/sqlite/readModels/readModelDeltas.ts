import { failureFingerprint } from '../functions/failureFingerprint.js';
import type { FailureGroupRow } from '../../common/failureGroupRows.js';
import { initialStatusAllowed, reportRefusedTransition, transitionAllowed } from '../../common/statusTransitions.js';

/** The columns of a task row that place it in the read models' groups. */
export interface TaskGroup {
  queue: string;
  type: string;
  is_recurring: number;
  /** 1 when the row is an occurrence of a durable schedule (parent_task_id set). */
  is_occurrence: number;
  created_at: number;
}

/** A new task row as the read models see it. */
export interface NewTaskFacts extends TaskGroup {
  id: string;
  handler: string;
  request: string;
  status: string;
  task_key: string | null;
  /** The row's rowid when its writer knows it (its search row then reads the row's status by it). */
  rowid?: number;
}

/** A new task's search row: its request and key (the full-text indexes) and its group columns (sort and filter). */
export interface NewSearchRow extends TaskGroup {
  request: string;
  task_key: string | null;
  rowid?: number;
}

/** One finished run (run_count went up by one): the run buckets, failure groups and queue throughput count it. */
export interface FinishedRunFacts {
  taskId: string;
  type: string;
  queue: string;
  /** last_execution_at after the run. */
  endedAt: number;
  outcome: string;
  /** execution_time_ms after the run (null: not measured). */
  executionTimeMs: number | null;
  /** The row's error text after the run (its fingerprint names the failure group). */
  exception: string | null;
}

/** A full task row before or after a change, for the generic `changed` (columns the read models read). */
export interface TaskRowFacts extends NewTaskFacts {
  run_count: number;
  last_outcome: string | null;
  last_execution_at: number | null;
  execution_time_ms: number | null;
  exception: string | null;
}

interface RunBucket {
  bucket: number;
  type: string;
  queue: string;
  completed: number;
  failed: number;
  dur_sum: number;
  dur_count: number;
  dur_min: number | null;
  dur_max: number | null;
}

interface FailureGroup extends FailureGroupRow {
  bucket: number;
}

const HOUR = 3_600_000;
const DAY = 86_400_000;
const THROUGHPUT_BUCKET = 10_000;
/** Throughput buckets kept behind the newest one (two minutes). */
export const THROUGHPUT_KEEP = 12;

/** The bucket SQL computes for `ms / size`: integer division for integers (as the rebuild queries do). */
export function bucketOf(ms: number, size: number): number {
  return Number.isInteger(ms) ? Math.trunc(ms / size) : ms / size;
}

/**
 * Every status change on SQLite is recorded here (the read models depend on it), so this is where
 * the task writer checks it against the transition table, the net behind the writers' own guards:
 * a change recorded here was already written, so it is reported (and, in strict mode, throws and
 * rolls the writer's transaction back).
 */
const WRITER = 'the SQLite task writer';

/** The map of one status in a map keyed by status first. */
function inStatus<V>(byStatus: Map<string, Map<string, V>>, status: string): Map<string, V> {
  let m = byStatus.get(status);
  if (m === undefined) byStatus.set(status, (m = new Map()));
  return m;
}

/** The parts of a group's map keys that do not depend on the status (a status move counts twice with them). */
class GroupKeys {
  readonly tasks: string;
  readonly hour: number;
  readonly day: number;
  readonly hourKey: string;
  readonly dayKey: string;

  constructor(readonly group: TaskGroup) {
    this.tasks = `${group.queue}\u0000${group.type}\u0000${group.is_recurring}\u0000${group.is_occurrence}`;
    this.hour = bucketOf(group.created_at, HOUR);
    this.day = bucketOf(group.created_at, DAY);
    this.hourKey = `${this.hour}\u0000${group.type}`;
    this.dayKey = `${this.day}\u0000${group.type}`;
  }
}

/**
 * The read-model changes of one write transaction, added up per group: every writer of task rows
 * records here what it changed (a new row, a status move, a finished run, a new request text),
 * and `applyReadModelDeltas` writes the sums once at the end of the same transaction. Counting
 * per group instead of per row keeps a group commit of thousands of rows to a few statements.
 */
export class ReadModelDeltas {
  /**
   * stat_tasks: status → group key → [queue, type, status, is_recurring, is_occurrence, n]. Keyed by
   * status first, so that a status move looks its group key up (and hashes it) once per map.
   */
  readonly tasks = new Map<string, Map<string, [string, string, string, number, number, number]>>();
  /** stat_created_hour / _day: status → bucket and type key → [bucket, type, status, n]. */
  readonly createdHour = new Map<string, Map<string, [number, string, string, number]>>();
  readonly createdDay = new Map<string, Map<string, [number, string, string, number]>>();
  readonly runsHour = new Map<string, RunBucket>();
  readonly runsDay = new Map<string, RunBucket>();
  readonly failuresHour = new Map<string, FailureGroup>();
  readonly failuresDay = new Map<string, FailureGroup>();
  /** stat_queue_finished_10s: key → [bucket, queue, n]. */
  readonly throughput = new Map<string, [number, string, number]>();
  /** Newest throughput bucket counted (older ones beyond THROUGHPUT_KEEP are dropped). */
  newestThroughputBucket: number | null = null;
  /** New rows' search rows (request text, key, group columns), by task id. */
  readonly searchInserts = new Map<string, NewSearchRow>();
  /**
   * Rows inserted in bulk (`insertedMany`): every task row with a rowid above this one is new in
   * this transaction and gets its search row from the task row itself (null: none).
   */
  bulkInsertedAfterRowid: number | null = null;
  /**
   * The creation times of the rows inserted in bulk, least and greatest (each `insertedMany` call
   * records rows alike, so one creation time each), and whether any of them has a task key.
   */
  readonly bulkInserted = { minCreatedAt: Number.POSITIVE_INFINITY, maxCreatedAt: Number.NEGATIVE_INFINITY, keyed: false };
  /** Existing rows whose request text changed, by task id. */
  readonly searchUpdates = new Map<string, string>();
  /** Existing rows whose group columns changed (the copy in their search row follows), by task id. */
  readonly searchRegroups = new Map<string, TaskGroup>();
  /** Existing rows whose task key changed (null: no key any more), by task id. */
  readonly searchKeyUpdates = new Map<string, string | null>();
  /** (type, handler) pairs seen: key → [type, handler]. */
  readonly typeHandlers = new Map<string, [string, string]>();
  /**
   * Whether recorded status moves and new rows' statuses are checked against the transition
   * table (see WRITER). Off only for a test's own seeding of rows as past writers left them,
   * which is no transition.
   */
  checkTransitions = true;
  /** Net change of Queued rows per queue (admission reads the count before the deltas are written). */
  private readonly queuedByQueue = new Map<string, number>();

  /** Whether nothing was recorded. */
  get empty(): boolean {
    return (
      this.tasks.size === 0 && this.runsHour.size === 0 && this.failuresHour.size === 0 && this.throughput.size === 0 &&
      this.searchInserts.size === 0 && this.bulkInsertedAfterRowid === null && this.searchUpdates.size === 0 && this.searchRegroups.size === 0 &&
      this.searchKeyUpdates.size === 0 && this.typeHandlers.size === 0
    );
  }

  /** Queued rows of `queue` added (or removed, negative) by this transaction so far. */
  queuedChange(queue: string): number {
    return this.queuedByQueue.get(queue) ?? 0;
  }

  /** A new task row. */
  inserted(row: NewTaskFacts): void {
    if (this.checkTransitions && !initialStatusAllowed(row.status)) reportRefusedTransition(WRITER, null, row.status, [row.id], true);
    if (this.bulkInsertedAfterRowid !== null) {
      throw new Error('A task row inserted after a bulk insert would get two search rows: record it with insertedMany');
    }
    this.count(row, row.status, 1);
    this.searchInserts.set(row.id, {
      request: row.request, task_key: row.task_key, queue: row.queue, type: row.type, is_recurring: row.is_recurring,
      is_occurrence: row.is_occurrence, created_at: row.created_at, ...(row.rowid !== undefined ? { rowid: row.rowid } : {}),
    });
    this.handledBy(row.type, row.handler);
  }

  /**
   * `n` new task rows alike but for their ids, inserted in bulk after the task row `afterRowid`:
   * counted once for all, their search rows written from the task rows (every row above
   * `afterRowid`, so no single row may be recorded with `inserted` after them).
   */
  insertedMany(row: Omit<NewTaskFacts, 'id'>, n: number, afterRowid: number): void {
    if (n === 0) return;
    if (this.checkTransitions && !initialStatusAllowed(row.status)) reportRefusedTransition(WRITER, null, row.status, [], true);
    this.count(row, row.status, n);
    if (this.bulkInsertedAfterRowid === null || afterRowid < this.bulkInsertedAfterRowid) this.bulkInsertedAfterRowid = afterRowid;
    const bulk = this.bulkInserted;
    bulk.minCreatedAt = Math.min(bulk.minCreatedAt, row.created_at);
    bulk.maxCreatedAt = Math.max(bulk.maxCreatedAt, row.created_at);
    bulk.keyed ||= row.task_key !== null;
    this.handledBy(row.type, row.handler);
  }

  /**
   * `n` new compact Pending occurrences alike (migration 15): counted as Pending task rows now;
   * their search rows are written when they become task rows (`spilledMany`).
   */
  insertedCompact(row: Omit<NewTaskFacts, 'id' | 'status' | 'task_key' | 'request'>, n: number): void {
    if (n === 0) return;
    this.count(row, 'Pending', n);
    this.handledBy(row.type, row.handler);
  }

  /**
   * Compact occurrences became the task rows above `afterRowid` (already counted when they were
   * written): only their search rows are new, written by the bulk pass as for `insertedMany`.
   */
  spilledMany(afterRowid: number, minCreatedAt: number, maxCreatedAt: number): void {
    if (this.bulkInsertedAfterRowid === null || afterRowid < this.bulkInsertedAfterRowid) this.bulkInsertedAfterRowid = afterRowid;
    const bulk = this.bulkInserted;
    bulk.minCreatedAt = Math.min(bulk.minCreatedAt, minCreatedAt);
    bulk.maxCreatedAt = Math.max(bulk.maxCreatedAt, maxCreatedAt);
  }

  /** A compact occurrence dropped without becoming a task row (its slot already had one): uncounted. */
  droppedCompact(row: TaskGroup): void {
    this.count(row, 'Pending', -1);
  }

  /** The row's status changed from `from` to `to` (nothing else that groups it). */
  moved(row: TaskGroup, from: string, to: string): void {
    if (from === to) return;
    if (this.checkTransitions && !transitionAllowed(from, to)) reportRefusedTransition(WRITER, from, to, [], true);
    const keys = new GroupKeys(row);
    this.countIn(keys, from, -1);
    this.countIn(keys, to, 1);
  }

  /** The row's status went `from → through → to` in one write (both steps checked): counted as leaving `from` for `to`. */
  movedThrough(row: TaskGroup, from: string, through: string, to: string): void {
    if (this.checkTransitions && !(transitionAllowed(from, through) && transitionAllowed(through, to))) {
      reportRefusedTransition(WRITER, from, `${through} → ${to}`, [], true);
    }
    if (from === to) return;
    const keys = new GroupKeys(row);
    this.countIn(keys, from, -1);
    this.countIn(keys, to, 1);
  }

  /** The row left group `before` (with status `from`) for group `after` (status `to`): a schedule's definition changed. */
  regrouped(before: TaskGroup, from: string, after: TaskGroup & { handler: string }, to: string): void {
    if (this.checkTransitions && !transitionAllowed(from, to)) reportRefusedTransition(WRITER, from, to, [], true);
    this.count(before, from, -1);
    this.count(after, to, 1);
    this.handledBy(after.type, after.handler);
  }

  /** The request text of an existing row changed. */
  requestChanged(id: string, request: string): void {
    const inserted = this.searchInserts.get(id);
    if (inserted) inserted.request = request;
    else this.searchUpdates.set(id, request);
  }

  /** The group columns of an existing row changed (its search row keeps a copy of them). */
  private searchRegrouped(id: string, g: TaskGroup): void {
    const group: TaskGroup = { queue: g.queue, type: g.type, is_recurring: g.is_recurring, is_occurrence: g.is_occurrence, created_at: g.created_at };
    const inserted = this.searchInserts.get(id);
    if (inserted) Object.assign(inserted, group);
    else this.searchRegroups.set(id, group);
  }

  /** A finished run: run_count went up by one. */
  ran(run: FinishedRunFacts): void {
    this.runBucket(this.runsHour, bucketOf(run.endedAt, HOUR), run);
    this.runBucket(this.runsDay, bucketOf(run.endedAt, DAY), run);
    if (run.outcome === 'Failed') {
      const fingerprint = failureFingerprint(run.exception);
      this.failureGroup(this.failuresHour, bucketOf(run.endedAt, HOUR), fingerprint, run);
      this.failureGroup(this.failuresDay, bucketOf(run.endedAt, DAY), fingerprint, run);
    }
    const bucket = bucketOf(run.endedAt, THROUGHPUT_BUCKET);
    const key = `${bucket}\u0000${run.queue}`;
    const t = this.throughput.get(key);
    if (t) t[2]++;
    else this.throughput.set(key, [bucket, run.queue, 1]);
    if (this.newestThroughputBucket === null || bucket > this.newestThroughputBucket) this.newestThroughputBucket = bucket;
  }

  /**
   * Any change of one row, from its columns before (undefined: a new row) to after. For
   * writers that change many columns at once; the hot paths record their one kind of change
   * directly.
   */
  changed(before: TaskRowFacts | undefined, after: TaskRowFacts): void {
    if (before === undefined) {
      this.inserted(after);
      return;
    }
    const regroup = before.queue !== after.queue || before.type !== after.type || before.is_recurring !== after.is_recurring ||
      before.is_occurrence !== after.is_occurrence || before.created_at !== after.created_at;
    if (regroup || before.handler !== after.handler) this.regrouped(before, before.status, after, after.status);
    else this.moved(before, before.status, after.status);
    if (regroup) this.searchRegrouped(after.id, after);
    if (before.task_key !== after.task_key) {
      const inserted = this.searchInserts.get(after.id);
      if (inserted) inserted.task_key = after.task_key;
      else this.searchKeyUpdates.set(after.id, after.task_key);
    }
    if (before.request !== after.request) this.requestChanged(after.id, after.request);
    if (after.run_count > before.run_count && after.last_execution_at !== null && after.last_outcome !== null) {
      this.ran({
        taskId: after.id, type: after.type, queue: after.queue, endedAt: after.last_execution_at, outcome: after.last_outcome,
        executionTimeMs: after.execution_time_ms, exception: after.exception,
      });
    }
  }

  /** A (type, handler) pair seen on a new or regrouped row. */
  private handledBy(type: string, handler: string): void {
    const pair = `${type}\u0000${handler}`;
    if (!this.typeHandlers.has(pair)) this.typeHandlers.set(pair, [type, handler]);
  }

  private count(g: TaskGroup, status: string, n: number): void {
    this.countIn(new GroupKeys(g), status, n);
  }

  /** Adds `n` to the task count and the creation buckets of a group (keys built once) in one status. */
  private countIn(k: GroupKeys, status: string, n: number): void {
    const g = k.group;
    const tasks = inStatus(this.tasks, status);
    const t = tasks.get(k.tasks);
    if (t) t[5] += n;
    else tasks.set(k.tasks, [g.queue, g.type, status, g.is_recurring, g.is_occurrence, n]);
    this.created(inStatus(this.createdHour, status), k.hour, k.hourKey, g.type, status, n);
    this.created(inStatus(this.createdDay, status), k.day, k.dayKey, g.type, status, n);
    if (status === 'Queued') this.queuedByQueue.set(g.queue, (this.queuedByQueue.get(g.queue) ?? 0) + n);
  }

  private created(map: Map<string, [number, string, string, number]>, bucket: number, key: string, type: string, status: string, n: number): void {
    const c = map.get(key);
    if (c) c[3] += n;
    else map.set(key, [bucket, type, status, n]);
  }

  private runBucket(map: Map<string, RunBucket>, bucket: number, run: FinishedRunFacts): void {
    const key = `${bucket}\u0000${run.type}\u0000${run.queue}`;
    let b = map.get(key);
    if (!b) {
      b = { bucket, type: run.type, queue: run.queue, completed: 0, failed: 0, dur_sum: 0, dur_count: 0, dur_min: null, dur_max: null };
      map.set(key, b);
    }
    if (run.outcome === 'Completed') {
      b.completed++;
      const d = run.executionTimeMs;
      if (d !== null) {
        b.dur_sum += d;
        b.dur_count++;
        if (b.dur_min === null || d < b.dur_min) b.dur_min = d;
        if (b.dur_max === null || d > b.dur_max) b.dur_max = d;
      }
    } else if (run.outcome === 'Failed') {
      b.failed++;
    }
  }

  private failureGroup(map: Map<string, FailureGroup>, bucket: number, fingerprint: string, run: FinishedRunFacts): void {
    const key = `${bucket}\u0000${run.type}\u0000${fingerprint}`;
    const g = map.get(key);
    if (!g) {
      map.set(key, { bucket, type: run.type, fingerprint, n: 1, first_seen: run.endedAt, last_seen: run.endedAt, sample_task_id: run.taskId });
      return;
    }
    g.n++;
    if (run.endedAt < g.first_seen) g.first_seen = run.endedAt;
    if (run.endedAt >= g.last_seen) {
      g.last_seen = run.endedAt;
      g.sample_task_id = run.taskId;
    }
  }
}
