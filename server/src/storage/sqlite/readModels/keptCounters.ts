import type { Database } from 'better-sqlite3';
import { COUNTERS, type Counter } from '../../common/readModels/counters.js';

const byConnection = new WeakMap<Database, readonly Counter[]>();

/**
 * Has the task writer of `db` keep `counters` instead of COUNTERS (a test's description that adds
 * counters, whose tables it created). Give the same array each time: the keeper's code is
 * generated once per array.
 */
export function keepReadModelCounters(db: Database, counters: readonly Counter[]): void {
  byConnection.set(db, counters);
}

/** The description whose counters the task writer of `db` keeps. */
export function keptCounters(db: Database): readonly Counter[] {
  return byConnection.get(db) ?? COUNTERS;
}
