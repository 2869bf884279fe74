/** The nominal slots of a schedule definition, as UTC epoch milliseconds, ascending. */
export interface SlotCount {
  count: number;
  /** False when counting stopped at the bound (there are more slots than `count`). */
  exact: boolean;
}

export interface SlotSource {
  /** First slot strictly after `afterExcl`, or null when the definition never fires again. */
  firstAfter(afterExcl: number): number | null;
  /** Slots in (afterExcl, toIncl], ascending. */
  forward(afterExcl: number, toIncl: number): Iterable<number>;
  /** Slots in (afterExcl, toIncl], descending. */
  backward(toIncl: number, afterExcl: number): Iterable<number>;
  /** Number of slots in (afterExcl, toIncl]; cron counting stops at `bound`, intervals are exact. */
  count(afterExcl: number, toIncl: number, bound: number): SlotCount;
  /** Whether `slot` is one of the definition's slots. */
  produces(slot: number): boolean;
}

/** Shared bounded count over an enumeration. */
export function countByEnumeration(source: SlotSource, afterExcl: number, toIncl: number, bound: number): SlotCount {
  if (toIncl <= afterExcl) return { count: 0, exact: true };
  let n = 0;
  for (const _slot of source.forward(afterExcl, toIncl)) {
    if (n === bound) return { count: bound, exact: false };
    n++;
  }
  return { count: n, exact: true };
}
