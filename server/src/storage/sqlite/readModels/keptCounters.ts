import type { Database } from 'better-sqlite3';
import { COUNTERS, type Counter } from '../../common/readModels/counters.js';

/**
 * The counters of the description that ReadModelDeltas keeps in its own maps, shaped for the
 * group commit (keyed maps, status first): a test holds them to the description. Every other
 * counter of the description is kept by a CounterAccumulator built from its entry.
 */
export const HAND_KEPT: ReadonlySet<string> = new Set([
  'stat_tasks', 'stat_created_hour', 'stat_created_day', 'stat_runs_hour', 'stat_runs_day',
  'failure_groups_hour', 'failure_groups_day', 'stat_queue_finished_10s',
]);

const generic = (counters: readonly Counter[]) => counters.filter((c) => !HAND_KEPT.has(c.table));
const DEFAULT = generic(COUNTERS);
const byConnection = new WeakMap<Database, readonly Counter[]>();

/**
 * Has the task writer of `db` keep `counters` (a description other than COUNTERS: a test's
 * fixture, whose tables it created). The hand-kept counters are kept whatever the list.
 */
export function keepReadModelCounters(db: Database, counters: readonly Counter[]): void {
  byConnection.set(db, generic(counters));
}

/** The counters of `db`'s description that are kept by accumulators built from their entries. */
export function accumulatedCounters(db: Database): readonly Counter[] {
  return byConnection.get(db) ?? DEFAULT;
}
