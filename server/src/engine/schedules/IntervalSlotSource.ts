import type { SlotCount, SlotSource } from './SlotSource.js';

/**
 * `every` schedules: slots anchor + k·every (k ≥ 0) in elapsed time (time zones do not apply),
 * optionally ending at `untilMs` (inclusive). Counting is arithmetic, hence always exact.
 */
export class IntervalSlotSource implements SlotSource {
  constructor(
    private readonly anchorMs: number,
    private readonly everyMs: number,
    private readonly untilMs: number = Number.POSITIVE_INFINITY,
  ) {}

  /** Index of the first slot > t. */
  private firstIndexAfter(t: number): number {
    return t < this.anchorMs ? 0 : Math.floor((t - this.anchorMs) / this.everyMs) + 1;
  }

  /** Index of the last slot ≤ t (−1 when none). */
  private lastIndexAtOrBefore(t: number): number {
    const end = Math.min(t, this.untilMs);
    return end < this.anchorMs ? -1 : Math.floor((end - this.anchorMs) / this.everyMs);
  }

  firstAfter(afterExcl: number): number | null {
    const slot = this.anchorMs + this.firstIndexAfter(afterExcl) * this.everyMs;
    return slot <= this.untilMs ? slot : null;
  }

  *forward(afterExcl: number, toIncl: number): Iterable<number> {
    const last = this.lastIndexAtOrBefore(toIncl);
    for (let k = this.firstIndexAfter(afterExcl); k <= last; k++) yield this.anchorMs + k * this.everyMs;
  }

  *backward(toIncl: number, afterExcl: number): Iterable<number> {
    const first = this.firstIndexAfter(afterExcl);
    for (let k = this.lastIndexAtOrBefore(toIncl); k >= first; k--) yield this.anchorMs + k * this.everyMs;
  }

  count(afterExcl: number, toIncl: number): SlotCount {
    return { count: Math.max(0, this.lastIndexAtOrBefore(toIncl) - this.firstIndexAfter(afterExcl) + 1), exact: true };
  }

  produces(slot: number): boolean {
    return slot >= this.anchorMs && slot <= this.untilMs && (slot - this.anchorMs) % this.everyMs === 0;
  }
}
