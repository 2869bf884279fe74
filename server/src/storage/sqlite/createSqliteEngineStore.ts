import { randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { statSync } from 'node:fs';
import { DEFAULT_MAX_ABANDONED } from '../common/abandonedRuns.js';
import { StoreUnavailableError } from '../EngineStore.js';
import type {
  CancelOutcome, CommitBatch, CommitOutcome, EngineStore, FinishedRun, InsertOutcome, LocationCheck, NewTask, QueueCapacities, RecoverInput,
  RunnableTaskRow, StartedRun,
} from '../EngineStore.js';
import { ClaimedGroups } from './tasks/claimedGroups.js';
import { ForeignWrites } from './tasks/foreignWrites.js';
import { prepareEngineStatements, type EngineStatements } from './tasks/prepareEngineStatements.js';
import type { StatusAuditRow } from './tasks/insertStatusAudits.js';
import { endsWithItsStart, type WholeRun } from './tasks/startAndEndRuns.js';
import type { ReadModelDeltas } from './readModels/readModelDeltas.js';
import { taskWriter } from './readModels/taskWriter.js';
import type { SqliteStorage } from '../Storage.js';
import { createSqliteScheduleStore } from './schedules/createSqliteScheduleStore.js';
import { createSqliteTaskManagementStore } from './management/createSqliteTaskManagementStore.js';
import { retryWhileBusy } from './connection/retryWhileBusy.js';
import { dueOnInsert } from '../common/dueOnInsert.js';

/**
 * How long a write waits for a lock held by another connection before it gives up with
 * SQLITE_BUSY. Short on purpose: better-sqlite3 waits synchronously, so a long wait would freeze
 * the event loop; the engine retries on a timer instead (StoreUnavailableError).
 */
export const ENGINE_BUSY_TIMEOUT_MS = 20;

const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|FULL|IOERR|CANTOPEN|READONLY|PROTOCOL|NOMEM|INTERRUPT)/;

/** SQLite errors after which the same call may succeed later become StoreUnavailableError. */
export function sqliteUnavailable(err: unknown, file: string): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && UNAVAILABLE.test(code)) {
    const what = code.startsWith('SQLITE_FULL') ? 'the disk is full' : code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')
      ? 'another connection holds a lock' : 'it cannot be written';
    return new StoreUnavailableError(`The database ${file} is unavailable (${what}; ${code}): ${(err as Error).message}`, code, { cause: err });
  }
  return err;
}

/** The SQLite EngineStore, and what it holds per claimed row. */
export interface SqliteEngineStore extends EngineStore {
  /** Rows whose claim this store remembers (claimed here, run not ended, reservation not dropped): never more than the engine holds. */
  readonly rowsHeld: number;
}

/** The engine's SQLite store over an open writable storage (one connection, synchronous statements). */
export function createSqliteEngineStore(storage: SqliteStorage): SqliteEngineStore {
  if (storage.readonly) throw new TypeError('createSqliteEngineStore: the storage is open read-only');
  const db = storage.db;
  db.pragma(`busy_timeout = ${ENGINE_BUSY_TIMEOUT_MS}`);
  const guard = <T>(work: () => T): T => {
    assertOpen(storage);
    try {
      return work();
    } catch (err) {
      throw sqliteUnavailable(err, storage.file);
    }
  };
  // Marks the rows this store reserves for its engine (one engine per store).
  const instanceId = randomUUID();
  const sql = prepareEngineStatements(db, instanceId);
  const reservedRow = db.prepare(`SELECT 1 FROM tasks WHERE id = ? AND status = 'Queued' AND reserved_by = ? AND reserved_at = ?`).pluck();
  const runningRow = db.prepare(`SELECT 1 FROM tasks WHERE id = ? AND status = 'InProgress' AND run_token = ?`).pluck();
  const identity = fileIdentity(storage.file);
  const foreign = new ForeignWrites(db);

  const write = taskWriter(db);
  const claimed = new ClaimedGroups();
  const recover = (input: RecoverInput): number => {
    const out = write((deltas) => {
      claimed.clear();
      const o = sql.recoverTasks(input.now, input.maxAbandoned ?? DEFAULT_MAX_ABANDONED, deltas);
      for (const q of input.unlimitedQueues) sql.admitWaiting(q, Number.MAX_SAFE_INTEGER, input.now, deltas);
      return o;
    });
    if (out.failed.length > 0) input.onAbandoned?.(out.failed);
    return out.requeued;
  };

  const stillReserved = (id: string, reservedAt: number): boolean => {
    // A row known reserved here stays so until a writer other than this store's commits (another
    // connection, or this connection outside them: see ForeignWrites) writes; those commits
    // forget what they un-reserve. Otherwise the row itself is read.
    if (storage.closed) return false;
    const known = claimed.peek(id);
    const epoch = foreign.current();
    if (known !== undefined && known.reservedAt === reservedAt && known.epoch === epoch) return true;
    const held = reservedRow.get(id, instanceId, reservedAt) === 1;
    if (known !== undefined && known.reservedAt === reservedAt) {
      if (held) known.epoch = epoch;
      else claimed.forget(id); // cancelled or taken: its start and end are never written here
    }
    return held;
  };

  return {
    location: storage.file,
    commit: async (batch) => guard(() => {
      // The epoch the claims of this commit are known at: writes of anyone else before it count.
      const epoch = foreign.current();
      try {
        return write((deltas) => applyBatch(sql, deltas, batch, claimed, epoch));
      } finally {
        foreign.ownCommitEnded();
      }
    }),
    confirmRuns(checks) {
      // Answered from this connection at once (see RunCheck).
      if (storage.closed) return checks.map(() => false);
      return checks.map((c) => (c.token === null ? stillReserved(c.id, c.reservedAt) : runningRow.get(c.id, c.token) === 1));
    },
    forgetReservation(id, reservedAt) {
      if (claimed.peek(id)?.reservedAt === reservedAt) claimed.forget(id);
    },
    get rowsHeld() {
      return claimed.size;
    },
    recover: async (input) => {
      assertOpen(storage);
      try {
        return await retryWhileBusy(() => recover(input));
      } catch (err) {
        throw sqliteUnavailable(err, storage.file);
      }
    },
    nextWakeAt: async (now) => guard(() => sql.nextWakeAt(now)),
    schedules: createSqliteScheduleStore(storage, (err) => sqliteUnavailable(err, storage.file)),
    management: createSqliteTaskManagementStore(db),
    rebuildReadModels: async () => storage.rebuildReadModels(),
    checkLocation: async (): Promise<LocationCheck> => {
      if (identity === null) return { ok: true };
      try {
        const now = await stat(storage.file);
        if (now.dev !== identity.dev || now.ino !== identity.ino) {
          return { ok: false, reason: `The database file ${storage.file} was replaced by another file while the engine had it open` };
        }
        return { ok: true };
      } catch {
        return { ok: false, reason: `The database file ${storage.file} was deleted while the engine had it open` };
      }
    },
  };
}

function assertOpen(storage: SqliteStorage): void {
  if (storage.closed) throw new Error('The storage is closed');
}

function fileIdentity(file: string): { dev: number; ino: number } | null {
  if (file === ':memory:' || file === '') return null;
  try {
    const s = statSync(file);
    return { dev: s.dev, ino: s.ino };
  } catch {
    return null;
  }
}

/** Every part of a group commit, in the documented order; runs inside the caller's transaction. */
function applyBatch(sql: EngineStatements, deltas: ReadModelDeltas, b: CommitBatch, claimed: ClaimedGroups, epoch: number): CommitOutcome {
  const now = b.now;
  const out: CommitOutcome = {
    logIds: [], inserted: [], cancelled: [], started: [], attemptsRecorded: [], finished: [], stopped: [], promoted: 0, claimed: [],
  };
  for (const l of b.logs) out.logIds.push(sql.insertExecutionLog(l));
  if (b.insertTasks.length > 0) {
    const audits: StatusAuditRow[] = [];
    for (const t of b.insertTasks) out.inserted.push(insertTask(sql, deltas, t, now, b.capacities, audits));
    if (audits.length > 0) sql.statusAudits(audits);
  }
  for (const id of b.cancels) {
    const outcome = cancel(sql, deltas, id, now);
    // A row reserved here and cancelled now is no longer known reserved (stillReserved reads it).
    if (outcome.result === 'Cancelled') claimed.forget(id);
    out.cancelled.push(outcome);
  }
  // Runs whose start and end this commit both carries are written as one change of their row first.
  const whole = wholeRuns(b);
  const startsWritten = new Set<StartedRun>();
  const endsWritten = new Set<FinishedRun>();
  if (whole.length > 0) {
    sql.startAndEndRuns(whole, deltas, claimed).forEach((written, i) => {
      if (!written) return;
      startsWritten.add(whole[i]!.start);
      endsWritten.add(whole[i]!.end);
    });
  }
  const startRuns = b.startRuns ?? [];
  if (startRuns.length > 0) {
    const apart = startsWritten.size === 0 ? startRuns : startRuns.filter((s) => !startsWritten.has(s));
    const started = apart.length > 0 ? sql.startRuns(apart, deltas, claimed) : [];
    if (apart === startRuns) out.started = started;
    else {
      let k = 0;
      for (const s of startRuns) out.started.push(startsWritten.has(s) || started[k++]!);
    }
  }
  for (const f of b.attemptFailures) out.attemptsRecorded.push(sql.recordAttemptFailure(f));
  if (b.completeRuns.length > 0) {
    const apart = endsWritten.size === 0 ? b.completeRuns : b.completeRuns.filter((r) => !endsWritten.has(r));
    const recorded = new Set(apart.length > 0 ? sql.completeRuns(apart, deltas, claimed) : []);
    for (const r of b.completeRuns) out.finished.push(endsWritten.has(r) || recorded.has(r));
  }
  for (const s of b.serviceStopped) {
    claimed.forget(s.id);
    out.stopped.push(sql.markServiceStopped(s.id, s.token, s.auditLevel, now, deltas));
  }
  if (b.releases !== undefined && b.releases.length > 0) sql.releaseReservations(b.releases, claimed);
  const d = b.dispatching;
  if (d !== null) {
    admitWaiting(sql, deltas, b.capacities, now);
    if (d.promoteLimit > 0) {
      out.promoted = sql.promoteDue(now, d.promoteLimit, (queue) => admission(sql, deltas, b.capacities, queue), deltas);
    }
    if (d.types.length > 0) {
      const types = new Set(d.types);
      const typesJson = JSON.stringify(d.types);
      const handles = (type: string) => types.has(type);
      for (const c of d.claims) {
        if (c.limit <= 0) continue;
        const rows: RunnableTaskRow[] = d.decide === null
          ? sql.claimTasksAtOnce(c.queue, typesJson, c.limit, now, d.reservationMs, handles)
          : sql.claimTasks(c.queue, typesJson, c.limit, now, d.reservationMs, d.decide, handles);
        for (const r of rows) {
          claimed.remember(r, epoch);
          out.claimed.push(r);
        }
      }
    }
    admitWaiting(sql, deltas, b.capacities, now);
  }
  return out;
}

/**
 * The runs whose start and end the batch both carries (the same run token), where the end can go
 * with its start (`endsWithItsStart`) and the batch holds no failed attempt or stop of that row
 * in between; oldest start first.
 */
function wholeRuns(b: CommitBatch): WholeRun[] {
  const starts = b.startRuns;
  if (starts === undefined || starts.length === 0 || b.completeRuns.length === 0) return [];
  const ends = new Map<string, FinishedRun>();
  for (const r of b.completeRuns) if (endsWithItsStart(r)) ends.set(r.token, r);
  for (const f of b.attemptFailures) ends.delete(f.token);
  for (const s of b.serviceStopped) ends.delete(s.token);
  const runs: WholeRun[] = [];
  for (const s of starts) {
    const end = ends.get(s.token);
    if (end !== undefined && end.id === s.id) runs.push({ start: s, end });
  }
  return runs;
}

/** Queued when the queue has room (capacity counts Queued rows), else WaitingQueue. */
function admission(sql: EngineStatements, deltas: ReadModelDeltas, capacities: QueueCapacities, queue: string): 'Queued' | 'WaitingQueue' {
  const capacity = capacities.get(queue);
  if (capacity === undefined || capacity === Infinity) return 'Queued';
  return sql.countQueued(queue, deltas) < capacity ? 'Queued' : 'WaitingQueue';
}

function admitWaiting(sql: EngineStatements, deltas: ReadModelDeltas, capacities: QueueCapacities, now: number): void {
  for (const [queue, capacity] of capacities) {
    if (capacity === Infinity) continue;
    const room = capacity - sql.countQueued(queue, deltas);
    if (room > 0) sql.admitWaiting(queue, room, now, deltas);
  }
}

/** Task-key dedup, then the first status (admission), insert and audit (into `audits`). */
function insertTask(
  sql: EngineStatements, deltas: ReadModelDeltas, t: NewTask, now: number, capacities: QueueCapacities, audits: StatusAuditRow[],
): InsertOutcome {
  if (t.taskKey !== null) {
    const open = sql.findOpenTaskByKey(t.taskKey);
    if (open !== undefined) {
      if (open.status === 'Pending') {
        sql.updatePendingTask({ id: open.id, request: t.request, scheduledAt: t.dueAt, recurrence: t.recurrence }, deltas);
      }
      return { id: open.id, existing: true, status: open.status };
    }
  }
  const status = dueOnInsert(t, now) ? admission(sql, deltas, capacities, t.queue) : 'Pending';
  sql.insertTask({
    id: t.id,
    type: t.type,
    handler: t.handler,
    request: t.request,
    queue: t.queue,
    status,
    taskKey: t.taskKey,
    auditLevel: t.auditLevel,
    createdAt: t.createdAt,
    scheduledAt: t.scheduledAt,
    retryPolicy: t.retryPolicy,
    timeoutMs: t.timeoutMs,
    rateLimitKey: t.rateLimitKey,
    isRecurring: t.isRecurring,
    recurrence: t.recurrence,
    traceparent: t.traceparent ?? null,
    tracestate: t.tracestate ?? null,
  }, deltas, audits);
  return { id: t.id, existing: false, status };
}

function cancel(sql: EngineStatements, deltas: ReadModelDeltas, id: string, now: number): CancelOutcome {
  sql.spill(deltas, { ids: [id] });
  const st = sql.readTaskState(id);
  if (st === undefined) return { result: 'NotFound' };
  if (st.is_schedule === 1) return { result: 'NotCancellable', task: st };
  if (!sql.cancelWaitingTask(id, st.audit_level, now, deltas)) return { result: 'NotCancellable', task: st };
  return { result: 'Cancelled', task: st };
}
