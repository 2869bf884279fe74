import { COUNTERS, type Counter } from '../../common/readModels/counters.js';
import type { PostgresStorage } from '../PostgresStorage.js';

const byStorage = new WeakMap<PostgresStorage, readonly Counter[]>();

/**
 * Has `storage` keep `counters` instead of COUNTERS: its engine stores' fast commits append their
 * deltas, its roll-up folds them and its rebuild recomputes them (a test's description that adds
 * counters, whose tables and trigger functions it installed). Give the same array each time: the
 * fast commit's statements are prepared once per text.
 */
export function keepReadModelCounters(storage: PostgresStorage, counters: readonly Counter[]): void {
  byStorage.set(storage, counters);
}

/** The description whose counters `storage` keeps. */
export function keptCounters(storage: PostgresStorage): readonly Counter[] {
  return byStorage.get(storage) ?? COUNTERS;
}
