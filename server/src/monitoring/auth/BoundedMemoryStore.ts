import type { ClientRateLimitInfo, Options, Store } from 'express-rate-limit';

interface Window {
  hits: number;
  resetAtMs: number;
}

/**
 * A fixed-window express-rate-limit store that tracks at most `maxClients` keys: a new key
 * beyond that drops the least recently used one, so a flood of distinct clients cannot grow
 * memory. (A Map keeps insertion order: re-inserting on use keeps the oldest use first.)
 */
export class BoundedMemoryStore implements Store {
  private readonly windows = new Map<string, Window>();
  private windowMs = 60_000;
  localKeys = true;

  constructor(
    readonly maxClients: number,
    private readonly now: () => number = Date.now,
  ) {}

  init(options: Options): void {
    this.windowMs = options.windowMs;
  }

  get size(): number {
    return this.windows.size;
  }

  get(key: string): ClientRateLimitInfo | undefined {
    const w = this.current(key);
    return w && { totalHits: w.hits, resetTime: new Date(w.resetAtMs) };
  }

  increment(key: string): ClientRateLimitInfo {
    let w = this.current(key);
    if (w === undefined) {
      w = { hits: 0, resetAtMs: this.now() + this.windowMs };
      while (this.windows.size >= this.maxClients) {
        const oldest = this.windows.keys().next().value as string;
        this.windows.delete(oldest);
      }
    }
    w.hits++;
    this.windows.delete(key);
    this.windows.set(key, w);
    return { totalHits: w.hits, resetTime: new Date(w.resetAtMs) };
  }

  decrement(key: string): void {
    const w = this.current(key);
    if (w && w.hits > 0) w.hits--;
  }

  resetKey(key: string): void {
    this.windows.delete(key);
  }

  resetAll(): void {
    this.windows.clear();
  }

  shutdown(): void {
    this.windows.clear();
  }

  private current(key: string): Window | undefined {
    const w = this.windows.get(key);
    if (w === undefined) return undefined;
    if (w.resetAtMs <= this.now()) {
      this.windows.delete(key);
      return undefined;
    }
    return w;
  }
}
