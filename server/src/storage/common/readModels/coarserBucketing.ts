import type { Counter } from './counters.js';

/**
 * Whether counter `c` is a coarser bucketing of counter `finer`: the same source, the same sums,
 * the same keys but the first, whose bucket is a whole multiple of finer's over the same field (a
 * day of 24 hours). Then `c`'s groups are finer's folded: a rebuild computes `c` from finer's rows
 * (first key divided by the returned ratio) instead of from the facts. Undefined when it is not.
 */
export function coarserBucketing(c: Counter, finer: Counter): number | undefined {
  if (finer === c || finer.source !== c.source || finer.keys.length !== c.keys.length || JSON.stringify(finer.sums) !== JSON.stringify(c.sums)) return undefined;
  const [a, ...restA] = finer.keys;
  const [b, ...restB] = c.keys;
  if (a === undefined || b === undefined || a.bucketMs === undefined || b.bucketMs === undefined || (a.from ?? a.column) !== (b.from ?? b.column)) return undefined;
  if (b.bucketMs % a.bucketMs !== 0 || JSON.stringify(restA) !== JSON.stringify(restB)) return undefined;
  return b.bucketMs / a.bucketMs;
}

/** The first of `rebuilt` that `c` is a coarser bucketing of, with the ratio of their buckets. */
export function finerRebuilt(c: Counter, rebuilt: readonly Counter[]): { finer: Counter; ratio: number } | undefined {
  for (const finer of rebuilt) {
    const ratio = coarserBucketing(c, finer);
    if (ratio !== undefined) return { finer, ratio };
  }
  return undefined;
}
