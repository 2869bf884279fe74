import { COUNTERS, type Counter } from '../../common/readModels/counters.js';
import { initialStatusAllowed, reportRefusedTransition, transitionAllowed } from '../../common/statusTransitions.js';
import { bucketOf, counterKeeper, type CounterKeeper, type FinishedRunFacts, type TaskGroup } from './counterKeeper.js';

export { bucketOf };
export type { FinishedRunFacts, TaskGroup };

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

/** A full task row before or after a change, for the generic `changed` (columns the read models read). */
export interface TaskRowFacts extends NewTaskFacts {
  run_count: number;
  last_outcome: string | null;
  last_execution_at: number | null;
  execution_time_ms: number | null;
  exception: string | null;
}

/**
 * Every status change on SQLite is recorded here (the read models depend on it), so this is where
 * the task writer checks it against the transition table, the net behind the writers' own guards:
 * a change recorded here was already written, so it is reported (and, in strict mode, throws and
 * rolls the writer's transaction back).
 */
const WRITER = 'the SQLite task writer';

/**
 * The read-model changes of one write transaction, added up per group: every writer of task rows
 * records here what it changed (a new row, a status move, a finished run, a new request text),
 * and `applyReadModelDeltas` writes the sums once at the end of the same transaction. Counting
 * per group instead of per row keeps a group commit of thousands of rows to a few statements.
 */
export class ReadModelDeltas {
  /** The description's counters, added up per group (generated from the description: counterKeeper.ts). */
  readonly counters: CounterKeeper;
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
  /** `description`: the counters kept (a test's fixture adds its own to COUNTERS). */
  constructor(readonly description: readonly Counter[] = COUNTERS) {
    this.counters = counterKeeper(description);
  }

  /** Whether nothing was recorded. */
  get empty(): boolean {
    return (
      this.counters.empty && this.searchInserts.size === 0 && this.bulkInsertedAfterRowid === null && this.searchUpdates.size === 0 && this.searchRegroups.size === 0 &&
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
    this.counters.move(row, from, to);
    this.queuedMoved(row.queue, from, to);
  }

  /** The row's status went `from → through → to` in one write (both steps checked): counted as leaving `from` for `to`. */
  movedThrough(row: TaskGroup, from: string, through: string, to: string): void {
    if (this.checkTransitions && !(transitionAllowed(from, through) && transitionAllowed(through, to))) {
      reportRefusedTransition(WRITER, from, `${through} → ${to}`, [], true);
    }
    if (from === to) return;
    this.counters.move(row, from, to);
    this.queuedMoved(row.queue, from, to);
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
    this.counters.ran(run);
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
    this.counters.count(g, status, n);
    if (status === 'Queued') this.queuedByQueue.set(g.queue, (this.queuedByQueue.get(g.queue) ?? 0) + n);
  }

  /** A status move's change of its queue's Queued rows. */
  private queuedMoved(queue: string, from: string, to: string): void {
    if (from === 'Queued') this.queuedByQueue.set(queue, (this.queuedByQueue.get(queue) ?? 0) - 1);
    else if (to === 'Queued') this.queuedByQueue.set(queue, (this.queuedByQueue.get(queue) ?? 0) + 1);
  }
}
