import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { PoolClient } from 'pg';
import { DEFAULT_MAX_ABANDONED, type AbandonedTask } from '../common/abandonedRuns.js';
import type { CommitBatch, CommitOutcome, EngineStore, LeaseLapse, LeaseState, RecoverInput } from '../EngineStore.js';
import type { TaskManagementStore } from '../TaskManagementStore.js';
import type { PostgresStorage } from './PostgresStorage.js';
import { admitWaiting } from './tasks/admitWaiting.js';
import { cancelTasks } from './tasks/cancelTasks.js';
import { fastCommit, isFastCommit } from './tasks/fastCommit.js';
import { claimTasks } from './tasks/claimTasks.js';
import { GlobalRateWindows } from './coordination/globalRateLimits.js';
import { asStoreUnavailable, classifyTrouble } from './connection/connectionTrouble.js';
import { completeRuns } from './tasks/completeRuns.js';
import { confirmRuns } from './tasks/confirmRuns.js';
import { rowsTakenAway } from './connection/rowsTakenAway.js';
import { insertExecutionLogs } from './tasks/insertExecutionLogs.js';
import { insertTasks } from './tasks/insertTasks.js';
import { failTakenOverClaims, heartbeat, recoverExpiredLeases, recoverOwnEarlierRuns, recoverRunsOfLapsedLease } from './coordination/instanceLeases.js';
import { createPostgresTaskManagementStore } from './management/createPostgresTaskManagementStore.js';
import { markServiceStopped } from './tasks/markServiceStopped.js';
import { promoteDue } from './tasks/promoteDue.js';
import { requeueUnknownClaims } from './coordination/requeueUnknownClaims.js';
import { QueueAdmission } from './coordination/queueAdmission.js';
import { recordAttemptFailures } from './tasks/recordAttemptFailures.js';
import { keptCounters } from './readModels/keptCounters.js';
import { createPostgresScheduleStore } from './schedules/createPostgresScheduleStore.js';
import { releaseReservations, startRuns } from './tasks/startRuns.js';
import { inTransaction, withClient } from './connection/storeClient.js';
import { taskStatusUpdate } from './tasks/taskStatusUpdate.js';

/** The wake notice a trigger sends when a reserved row is cancelled: `reservation-lost:<instance>:<task id>`. */
const RESERVATION_LOST = 'reservation-lost:';

export interface PostgresEngineStoreOptions {
  /** This engine instance's id (default: a random UUID). */
  instanceId?: string;
  /** An InProgress row whose instance has not renewed its heartbeat for this long is recovered by any live instance. Default 30000 ms. */
  leaseMs?: number;
  /** How often the heartbeat is renewed and expired leases looked for. Default leaseMs / 3. */
  heartbeatMs?: number;
  /**
   * Clock (ms since epoch) for the audit times of lease recovery. Default: the database's clock as
   * this host reads it (storage.clock). Leases themselves are timed in SQL by the database clock.
   */
  clock?: () => number;
  /**
   * Wait for the WAL flush on every group commit. Default true: what the engine reports (a run
   * Completed, Failed, Cancelled) is on disk before its event goes out. `false` lets a commit that
   * only claims and ends runs return without waiting for the flush (a commit that adds or cancels
   * tasks always waits); a database server crash may then undo its last run records and those
   * tasks run again (at-least-once delivery, as after an engine crash), never lose a task.
   */
  synchronousRunCommits?: boolean;
}

/** The PostgreSQL EngineStore plus what a multi-instance store adds: its instance id, lease recovery, disposal. */
export interface PostgresEngineStore extends EngineStore {
  readonly instanceId: string;
  /** Retry and bulk writes (the management companion of the store). */
  readonly management: TaskManagementStore;
  /** Renews the heartbeat and recovers expired leases now (the timer does it every heartbeatMs). Returns rows re-queued. */
  leaseTick(): Promise<number>;
  /** Whether the heartbeat is failing and whether the lease has lapsed (see EngineStore.lease). */
  lease(): LeaseState;
  /** Listens for lapses of this instance's lease (see EngineStore.onLeaseLost). */
  onLeaseLost(listener: (lapse: LeaseLapse) => readonly string[]): () => void;
  /**
   * Stops the heartbeat and removes this instance's row (its finished work stays), unless it left
   * runs ServiceStopped whose handlers still run: then the row lapses one lease after the last
   * heartbeat, when this process should have ended (a handler that ignored its abort ends with it).
   */
  dispose(): Promise<void>;
}

/**
 * The engine's store on PostgreSQL, for many engine instances on one database: group commits in
 * one transaction of batched statements; claims with FOR UPDATE SKIP LOCKED stamped with the
 * instance id; a heartbeat row per instance and lease recovery by any live instance; global
 * queue capacity under per-queue advisory locks; task keys unique among open rows by a partial
 * unique index; a wake NOTIFY when work becomes due or queued, which the other instances' engines
 * hear through `onExternalWork` and look at once (their poll is the fallback).
 */
export function createPostgresEngineStore(storage: PostgresStorage, options: PostgresEngineStoreOptions = {}): PostgresEngineStore {
  const instanceId = options.instanceId ?? randomUUID();
  const leaseMs = options.leaseMs ?? 30_000;
  const heartbeatMs = options.heartbeatMs ?? Math.max(100, Math.floor(leaseMs / 3));
  const clock = options.clock ?? storage.clock.now;
  if (!Number.isInteger(leaseMs) || leaseMs < 100) throw new TypeError('createPostgresEngineStore: option "leaseMs" must be an integer >= 100');
  // A run begins only while this instance's heartbeat is younger than this (database clock): two
  // thirds of the lease, or two heartbeats when those are longer; the rest is the margin against
  // another instance finding the lease lapsed while the attempt begins.
  const aliveWithinMs = Math.min(leaseMs, Math.max(Math.floor((leaseMs * 2) / 3), 2 * heartbeatMs));
  // Wake notices carry the instance id: an instance does not wake itself with its own writes.
  const wake = (c: PoolClient) => storage.events.wake(c, instanceId);

  // What the engine's last recover() asked of later lease recoveries and claims' takeovers.
  let maxAbandoned = DEFAULT_MAX_ABANDONED;
  let onAbandoned: RecoverInput['onAbandoned'];
  const reportAbandoned = (failed: AbandonedTask[]) => {
    if (failed.length > 0) onAbandoned?.(failed);
  };

  /** One commit's view of the shared rate windows: every limit its claims and retries name (null: none). */
  const sharedWindows = (c: PoolClient, b: CommitBatch, now: number): GlobalRateWindows | null => {
    const limits = new Map(b.dispatching?.rateLimits ?? []);
    for (const r of b.retryStarts ?? []) if (!limits.has(r.type)) limits.set(r.type, r.rateLimit);
    return limits.size > 0 ? new GlobalRateWindows(c, storage.schema, limits, now) : null;
  };

  /** A commit's outcome, with the rows its claims took over past maxAbandoned (to fail, not run: see splitTakeovers). */
  type Applied = CommitOutcome & { abandonedClaims: string[] };
  const applyCommit = (b: CommitBatch, afterLoss: boolean): Promise<Applied> => {
    const acknowledges = b.insertTasks.length > 0 || b.cancels.length > 0;
    // The steady state of a busy worker (runs ended, new claims) is one statement.
    if (!afterLoss && isFastCommit(b)) {
      return withClient(storage.pool, (c) => fastCommit(c, b, {
        instanceId, wakeChannel: storage.events.wakeChannel, wakeOrigin: instanceId, asyncCommit: options.synchronousRunCommits === false, maxAbandoned, leaseMs,
        // The counters the storage keeps (those its triggers were installed with: readModels/keptCounters.ts).
        counters: keptCounters(storage),
      }));
    }
    return inTransaction(storage.pool, async (c) => {
      const now = b.now;
      // After a lost connection: rows claimed by a commit whose answer never came go back to Queued.
      // (The runs this commit starts are this instance's too: a start whose answer was lost is written again below.)
      if (afterLoss) await requeueUnknownClaims(c, instanceId, [...owned, ...(b.startRuns ?? []).map((s) => s.id)], now);
      const admission = new QueueAdmission(c, storage.schema, b.capacities);
      // Queue locks come first in every commit that may take one (see QueueAdmission).
      if (b.dispatching !== null || b.insertTasks.some((t) => admission.capped(t.queue))) await admission.lockAll();
      const out: Applied = {
        logIds: await insertExecutionLogs(c, b.logs, afterLoss),
        inserted: await insertTasks(c, b.insertTasks, now, admission, afterLoss),
        cancelled: await cancelTasks(c, b.cancels, now),
        started: await startRuns(c, b.startRuns ?? [], instanceId, afterLoss),
        attemptsRecorded: await recordAttemptFailures(c, b.attemptFailures),
        finished: await completeRuns(c, b.completeRuns, afterLoss),
        stopped: await markServiceStopped(c, b.serviceStopped, now),
        promoted: 0,
        claimed: [],
        abandonedClaims: [],
      };
      await releaseReservations(c, b.releases ?? [], instanceId);
      const d = b.dispatching;
      // Rate limits hold across instances: the windows are kept in the database. Retries whose
      // backoff is over take their starts from them before the claims do.
      const rates = sharedWindows(c, b, now);
      const retries = b.retryStarts ?? [];
      if (rates !== null && retries.length > 0) {
        await rates.prepare(retries);
        out.retryStarts = retries.map((r) => rates.decideRetry(r));
      }
      if (d !== null) {
        await admitWaiting(c, admission, now);
        if (d.promoteLimit > 0) out.promoted = await promoteDue(c, now, d.promoteLimit, admission);
        if (d.types.length > 0) {
          for (const cl of d.claims) {
            if (cl.limit <= 0) continue;
            const { claimed, fail } = await claimTasks(c, {
              queue: cl.queue, limit: cl.limit, types: d.types, now, reservationMs: d.reservationMs, instanceId, maxAbandoned, leaseMs,
              ...(rates === null ? { decide: d.decide } : { decide: (r) => rates.decide(r), prepare: (rows) => rates.prepare(rows) }),
            });
            out.claimed.push(...claimed);
            out.abandonedClaims.push(...fail);
          }
        }
        await admitWaiting(c, admission, now);
      }
      await rates?.flush();
      // Other instances look at once when this commit made work runnable or due.
      const queuedOrDue =
        out.inserted.some((i) => !i.existing) || out.promoted > 0 || b.completeRuns.some((r) => r.nextStatus === 'Pending') || out.stopped.some(Boolean) ||
        (b.releases ?? []).length > 0;
      if (queuedOrDue) await wake(c);
      return out;
    }, { asyncCommit: !acknowledges && options.synchronousRunCommits === false });
  };

  /**
   * Ids of rows this instance started and has not yet reported ended: after a lost connection, an
   * InProgress row of this instance outside this set was started by a commit whose answer was lost.
   */
  const owned = new Set<string>();
  /**
   * Set once this instance marked a run ServiceStopped, and while the engine's handlers have not all
   * settled since its stop (handlersOutliveStop): such a handler may run on until this process
   * ends, so dispose leaves the instance row to lapse (other instances take the row one lease after
   * the last heartbeat) instead of removing it.
   */
  let leftStoppedRuns = false;
  let handlersRunning = false;
  /** Set when a commit lost its connection: its outcome is unknown until the next commit reconciles. */
  let lostOutcome = false;
  const commit = async (b: CommitBatch): Promise<CommitOutcome> => {
    const afterLoss = lostOutcome;
    let applied: Applied;
    try {
      applied = await applyCommit(b, afterLoss);
    } catch (err) {
      const trouble = classifyTrouble(err);
      if (trouble === 'lost') lostOutcome = true;
      throw asStoreUnavailable(err, storage.target, trouble);
    }
    const { abandonedClaims, ...out } = applied;
    if (abandonedClaims.length > 0 || unfailedTakeovers.size > 0) await failAbandonedClaims(abandonedClaims, b.now);
    if (afterLoss) lostOutcome = false;
    (b.startRuns ?? []).forEach((r, i) => {
      if (out.started[i]) owned.add(r.id);
    });
    for (const r of b.completeRuns) owned.delete(r.id);
    for (const r of b.serviceStopped) owned.delete(r.id);
    if (out.stopped.some(Boolean)) leftStoppedRuns = true;
    return out;
  };

  /** Taken-over rows to fail whose transaction failed: tried again after every commit until it lands. */
  const unfailedTakeovers = new Set<string>();
  /**
   * Rows this instance's claims took over and found abandoned more than maxAbandoned times: Failed
   * in their own transaction after the commit (the fast commit is one statement). Should that
   * fail, the rows stay reserved by this instance, unrun, and the next commit tries again (the
   * commit's own error, if the database is gone, is what the engine hears about).
   */
  const failAbandonedClaims = async (ids: string[], now: number) => {
    for (const id of ids) unfailedTakeovers.add(id);
    const due = [...unfailedTakeovers];
    try {
      reportAbandoned((await storage.transaction((c) => failTakenOverClaims(c, due, instanceId, now, maxAbandoned))).failed);
      for (const id of due) unfailedTakeovers.delete(id);
    } catch {
      // kept in unfailedTakeovers (see above)
    }
  };
  // The lease as this process sees it, on its monotonic clock: from the instant the last heartbeat
  // written was sent (the database stamped it later), so this process sees its lease lapse no
  // later than any other instance does.
  let renewedAt = performance.now();
  let heartbeatError: unknown = null;
  /** Whether a heartbeat of this life was written (before it, a missing row is a first registration). */
  let registered = false;
  let lapses = 0;
  /** Set while a lapse is known and this instance's rows it no longer runs are not yet given up. */
  let lapsePending: { sinceRenewalMs: number } | null = null;
  const leaseLostListeners = new Set<(lapse: LeaseLapse) => readonly string[]>();
  /**
   * After a lapse: the engine stops what has not begun and names what still runs here; the other
   * rows of this instance are given up. Until that is written, the lease stays lapsed here (no claims).
   */
  const giveUpLapsedRuns = async (lapse: { sinceRenewalMs: number }) => {
    const keep = new Set<string>();
    for (const l of leaseLostListeners) for (const id of l(lapse)) keep.add(id);
    const now = clock();
    const out = await storage.transaction(async (c) => {
      const o = await recoverRunsOfLapsedLease(c, storage.schema, instanceId, [...keep], now, maxAbandoned);
      if (o.requeued > 0) await wake(c);
      return o;
    });
    for (const id of owned) if (!keep.has(id)) owned.delete(id);
    reportAbandoned(out.failed);
  };
  const renew = async () => {
    const sentAt = performance.now();
    let lapsed: boolean;
    try {
      ({ lapsed } = await heartbeat(storage, instanceId, leaseMs));
    } catch (err) {
      heartbeatError = err;
      throw err;
    }
    heartbeatError = null;
    if (lapsed && registered && lapsePending === null) {
      lapses++;
      lapsePending = { sinceRenewalMs: sentAt - renewedAt };
    }
    registered = true;
    if (lapsePending !== null) {
      await giveUpLapsedRuns(lapsePending);
      lapsePending = null;
    }
    renewedAt = sentAt;
  };

  /** Recovers expired leases of other instances (one recovery at a time; a heartbeat never waits for it). */
  let recovering: Promise<number> | null = null;
  const recoverOthers = (): Promise<number> => {
    recovering ??= (async () => {
      const now = clock();
      const out = await storage.transaction(async (c) => {
        const o = await recoverExpiredLeases(c, storage.schema, now, leaseMs, maxAbandoned);
        if (o.requeued > 0) await wake(c);
        return o;
      });
      reportAbandoned(out.failed);
      return out.requeued + out.failed.length;
    })().finally(() => {
      recovering = null;
    });
    return recovering;
  };
  const leaseTick = async () => {
    await renew();
    return recoverOthers();
  };
  let disposed = false;
  // The timer's heartbeat in flight: dispose waits for it (and for a recovery), or a recovery it
  // began could take this instance's own rows for a dead instance's once its instance row is gone.
  let ticking: Promise<unknown> | null = null;
  // A failed heartbeat is tried again soon, not a whole period later: a connection the server
  // ended costs one round trip, not a third of the lease.
  const retryMs = Math.max(10, Math.min(100, Math.floor(heartbeatMs / 5)));
  let timer: NodeJS.Timeout | undefined;
  const scheduleTick = (ms: number) => {
    if (disposed) return;
    timer = setTimeout(tick, ms);
    timer.unref();
  };
  const tick = () => {
    timer = undefined;
    if (disposed || storage.closed) return;
    const began = performance.now();
    ticking = renew().then(
      () => {
        if (!disposed && !storage.closed) void recoverOthers().catch(() => undefined);
        return heartbeatMs - (performance.now() - began);
      },
      () => retryMs,
    ).then((next) => {
      ticking = null;
      scheduleTick(Math.max(0, next));
    });
  };
  scheduleTick(heartbeatMs);

  return {
    location: `postgres://${storage.target.host}:${storage.target.port}/${storage.target.database} (schema ${storage.schema})`,
    instanceId,
    commit,
    sharedRateWindows: true,
    // Engines on this store take their time from the database's clock (see DatabaseClock).
    now: storage.clock.now,
    clockOffsetMs: () => storage.clock.offsetMs,
    recover: async (input: RecoverInput) => {
      maxAbandoned = input.maxAbandoned ?? DEFAULT_MAX_ABANDONED;
      onAbandoned = input.onAbandoned;
      const failed: AbandonedTask[] = [];
      const requeued = await storage.transaction(async (c) => {
        // This id's earlier life first: its first heartbeat would make those rows look alive.
        const own = await recoverOwnEarlierRuns(c, instanceId, input.now, maxAbandoned, options.instanceId !== undefined);
        await renew();
        const expired = await recoverExpiredLeases(c, storage.schema, input.now, leaseMs, maxAbandoned);
        failed.push(...own.failed, ...expired.failed);
        // ServiceStopped rows are recovered as above, only once their instance is gone: a stopping
        // instance's handler may still run.
        const n = own.requeued + expired.requeued;
        if (input.unlimitedQueues.length > 0) {
          await c.query(
            `WITH admitted AS (${taskStatusUpdate({ writer: 'admitUnlimited', to: 'Queued', from: ['WaitingQueue'], where: 'queue = ANY($1::text[])', returning: 't.id, t.audit_level' })})
             INSERT INTO status_audit (task_id, updated_at, new_status) SELECT id, $2, 'Queued' FROM admitted WHERE audit_level = 'Full'`,
            [input.unlimitedQueues, input.now],
          );
        }
        if (n > 0) await wake(c);
        return n;
      });
      reportAbandoned(failed);
      return requeued;
    },
    // Until this life's first heartbeat is written (its start's may fail) it has no live instance
    // row: any other instance's recovery takes its rows for a dead one's, so it holds no lease yet.
    lease: () => ({ failing: heartbeatError, expired: !registered || lapsePending !== null || performance.now() - renewedAt > leaseMs, lapses }),
    rowsTakenAway: () => rowsTakenAway(storage.pool),
    confirmRuns: async (checks) => {
      try {
        return await confirmRuns(storage, checks, instanceId, aliveWithinMs);
      } catch (err) {
        throw asStoreUnavailable(err, storage.target, classifyTrouble(err));
      }
    },
    onLeaseLost(listener: (lapse: LeaseLapse) => readonly string[]) {
      leaseLostListeners.add(listener);
      return () => {
        leaseLostListeners.delete(listener);
      };
    },
    nextWakeAt: async (now) => {
      const { rows } = await storage.query<{ due: number | null; throttled: number | null }>(
        `SELECT LEAST((SELECT MIN(scheduled_at) FROM tasks WHERE status = 'Pending' AND scheduled_at IS NOT NULL
                    AND NOT (occurrence_mode IS NOT DISTINCT FROM 'Durable' AND parent_task_id IS NULL AND is_recurring = 1)),
                  -- compact occurrences (migration 19) by due time (LEAST ignores a NULL)
                  (SELECT MIN(scheduled_at) FROM pending_occurrences)) AS due,
                (SELECT MIN(throttled_until) FROM tasks WHERE throttled_until > $1) AS throttled`,
        [now],
      );
      const { due, throttled } = rows[0]!;
      if (due === null) return throttled;
      if (throttled === null) return due;
      return Math.min(due, throttled);
    },
    schedules: createPostgresScheduleStore(storage, wake),
    management: createPostgresTaskManagementStore(storage, wake),
    rebuildReadModels: () => storage.rebuildReadModels(),
    checkLocation: async () => {
      if (storage.closed) return { ok: false, reason: 'The PostgreSQL storage is closed' };
      return { ok: true };
    },
    onExternalWork(listener: () => void) {
      // Another instance's wake, not this one's own, and not a lost reservation (that frees no work).
      const onWake = (origin: string) => {
        if (origin !== instanceId && !origin.startsWith(RESERVATION_LOST)) listener();
      };
      storage.events.on('wake', onWake);
      return () => {
        storage.events.off('wake', onWake);
      };
    },
    onReservationLost(listener: (taskId: string) => void) {
      // Sent by a trigger when a row reserved by this instance is cancelled (any process).
      const prefix = `${RESERVATION_LOST}${instanceId}:`;
      const onWake = (origin: string) => {
        if (origin.startsWith(prefix)) listener(origin.slice(prefix.length));
      };
      storage.events.on('wake', onWake);
      return () => {
        storage.events.off('wake', onWake);
      };
    },
    handlersOutliveStop(settled: Promise<void>) {
      handlersRunning = true;
      void settled.then(() => {
        handlersRunning = false;
      });
    },
    leaseTick,
    async dispose() {
      disposed = true;
      clearTimeout(timer);
      await ticking;
      await recovering?.catch(() => undefined);
      // Without runs left ServiceStopped, other instances need not wait for the lease to lapse.
      if (!storage.closed && !(leftStoppedRuns && handlersRunning)) await storage.query(`DELETE FROM engine_instances WHERE id = $1`, [instanceId]).catch(() => undefined);
    },
  };
}
