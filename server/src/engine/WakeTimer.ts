import type { EngineStore } from '../storage/EngineStore.js';

/** Due Pending rows promoted per commit; more wait for the next commit. */
export const PROMOTE_BATCH = 1000;

/**
 * When the engine looks at the store on its own: the due-time hint that lets a commit skip the
 * promotion query while nothing can be due, and the poll timer armed when the writer goes idle
 * (the earlier of the next known due time and the poll interval, for rows written by others).
 */
export class WakeTimer {
  /** Earliest known due time of a Pending row; -Infinity: look now. */
  private dueHint = -Infinity;
  private timer: NodeJS.Timeout | undefined;
  /** Bumped by cancel(): an arm() still waiting for the store then sets no timer. */
  private generation = 0;

  constructor(
    private readonly store: EngineStore,
    private readonly clock: () => number,
    private readonly pollIntervalMs: number,
    private readonly fire: () => void,
    private readonly onError: (err: unknown, where: string) => void,
  ) {}

  /** Rows may be due now (new rows written by a part, a poll). */
  lookNow(): void {
    this.dueHint = -Infinity;
  }

  noteDue(at: number): void {
    if (at < this.dueHint) this.dueHint = at;
  }

  /** How many due rows the next commit should promote (0: none can be due). */
  promoteLimit(now: number): number {
    return now >= this.dueHint ? PROMOTE_BATCH : 0;
  }

  /** After a commit that promoted: true when there may be more due rows right now. */
  promoted(count: number, limit: number): boolean {
    if (limit === 0) return false;
    const more = count >= limit;
    this.dueHint = more ? -Infinity : Infinity;
    return more;
  }

  /** The writer went idle: wake at the next due time or after the poll interval. */
  arm(): void {
    const generation = ++this.generation;
    const now = this.clock();
    this.store.nextWakeAt(now).then(
      (next) => this.set(generation, next === null ? this.pollIntervalMs : Math.min(this.pollIntervalMs, Math.max(next - now, 2))),
      (err: unknown) => {
        if (generation !== this.generation) return; // cancelled meanwhile (the engine stopped)
        this.onError(err, 'next wake');
        this.set(generation, this.pollIntervalMs);
      },
    );
  }

  private set(generation: number, delay: number): void {
    if (generation !== this.generation) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.dueHint = -Infinity;
      this.fire();
    }, delay);
  }

  cancel(): void {
    this.generation++;
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
