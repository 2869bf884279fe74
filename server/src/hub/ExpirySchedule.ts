/** setTimeout's largest delay; a later expiry is reached by re-arming. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * The token expiries of every connection of a hub on one timer, armed for the earliest: thousands
 * of connections with a token cost one timer, not one each. When it fires, every connection due is
 * handed to `onDue` and the timer is armed for the next.
 */
export class ExpirySchedule<T> {
  private readonly due = new Map<T, number>();
  private timer: NodeJS.Timeout | undefined;
  private armedForMs = Infinity;

  constructor(private readonly onDue: (item: T) => void) {}

  /** `item` is due at `atMs` (epoch ms), replacing an earlier entry. */
  set(item: T, atMs: number): void {
    this.due.set(item, atMs);
    if (atMs < this.armedForMs) this.arm(atMs);
  }

  /** No longer due (closed meanwhile). The timer may still fire once for nothing, and re-arms. */
  delete(item: T): void {
    this.due.delete(item);
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.armedForMs = Infinity;
    this.due.clear();
  }

  private arm(atMs: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.armedForMs = atMs;
    this.timer = setTimeout(() => this.fire(), Math.min(Math.max(0, atMs - Date.now()), MAX_TIMER_MS));
    this.timer.unref();
  }

  private fire(): void {
    this.timer = undefined;
    this.armedForMs = Infinity;
    const now = Date.now();
    const dueNow: T[] = [];
    let next = Infinity;
    for (const [item, atMs] of this.due) {
      if (atMs <= now) dueNow.push(item);
      else next = Math.min(next, atMs);
    }
    for (const item of dueNow) {
      this.due.delete(item);
      this.onDue(item);
    }
    if (next < Infinity && next < this.armedForMs) this.arm(next);
  }
}
