import type { TaskStatus } from './task.js';

/**
 * Every status change a store may write, and the statuses a new row may start in. A change not
 * listed here is a bug: the task writers of both backends refuse it and report it
 * (`storage/common/statusTransitions.ts`), and `test/server/engine/transitions.test.ts` records
 * every status update the engine and the schedules make on a real database and checks it here
 * (a transition, or one of the two-step writes below).
 * Plain data (no imports of runtime code): the renderer may read it too.
 */
export const INITIAL_STATUSES: readonly TaskStatus[] = ['Pending', 'Queued', 'WaitingQueue'];

export const TASK_TRANSITIONS: Readonly<Record<TaskStatus, readonly TaskStatus[]>> = {
  // due (promotion, with the queue's capacity deciding), cancelled, or a durable schedule whose series ended
  Pending: ['Queued', 'WaitingQueue', 'Cancelled', 'Completed'],
  // admitted when the queue has room, or cancelled while waiting
  WaitingQueue: ['Queued', 'Cancelled'],
  // claimed by a worker, or cancelled before it started; a row reserved by an instance that died
  // (its handler may have begun before its start was written) failed as abandoned past maxAbandoned
  Queued: ['InProgress', 'Cancelled', 'Failed'],
  // the run ended; an inline recurring row waits for its next run (Pending); the engine stopped
  // during the run (ServiceStopped); a crashed run is re-queued at start (Queued)
  InProgress: ['Completed', 'Failed', 'Cancelled', 'Pending', 'ServiceStopped', 'Queued'],
  // re-queued once its instance is gone (at the next start, or by a live PostgreSQL instance),
  // or failed as abandoned past maxAbandoned
  ServiceStopped: ['Queued', 'Failed'],
  // a durable schedule whose changed definition produces slots again
  Completed: ['Pending'],
  // an occurrence of a durable schedule put back in the queue
  Failed: ['Queued'],
  Cancelled: ['Queued'],
};

/**
 * The only writes that carry two transitions of the table at once: a run whose handler began and
 * settled between two commits has its start and its end written by the same commit, and a store
 * may write them as one change of its row, from Queued straight to the run's end. Both steps are
 * transitions of the table, and the status audit keeps the step in between as if written apart
 * (InProgress at the instant the handler began, then the end). [from, through, to].
 */
export const TWO_STEP_WRITES: readonly (readonly [TaskStatus, TaskStatus, TaskStatus])[] = [
  ['Queued', 'InProgress', 'Completed'],
  ['Queued', 'InProgress', 'Failed'],
  ['Queued', 'InProgress', 'Cancelled'],
];

/** Whether `from → to` is a change a store may write. */
export function isAllowedTransition(from: TaskStatus, to: TaskStatus): boolean {
  return TASK_TRANSITIONS[from].includes(to);
}

/** Whether one write may move a row from `from` to `to`: a transition, or a two-step write. */
export function isAllowedWrite(from: TaskStatus, to: TaskStatus): boolean {
  return isAllowedTransition(from, to) || TWO_STEP_WRITES.some(([f, , t]) => f === from && t === to);
}
