import type { NewTask } from '../EngineStore.js';

/**
 * Whether a new task's first status is a due one (Queued, or WaitingQueue at capacity) rather than
 * Pending: it is not inline recurring, and it was dispatched to run now (no scheduled time: a
 * Pending row without one is never promoted) or its due time is not after the commit's `now`.
 * A dispatch to run now is due whatever the commit's instant: the engine's clock may read an
 * earlier instant at the commit than at the dispatch (a new reading of the database's clock, or a
 * host clock set back).
 */
export const dueOnInsert = (t: Pick<NewTask, 'isRecurring' | 'scheduledAt' | 'dueAt'>, now: number): boolean =>
  !t.isRecurring && (t.scheduledAt === null || t.dueAt <= now);
