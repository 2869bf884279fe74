import { performance } from 'node:perf_hooks';

/** The database server's clock in ms since the epoch, as SQL. */
export const DB_NOW_MS = `(extract(epoch FROM clock_timestamp()) * 1000)::bigint`;

/** Readings kept: the offset is taken from the one with the shortest round trip among them. */
const READINGS_KEPT = 8;

interface Reading {
  roundTripMs: number;
  offsetMs: number;
}

/**
 * The database server's clock as this host reads it. Every instant one process writes and another
 * compares (reservations, rate windows, throttle marks, takeovers; leases are read in SQL) is
 * taken on it, so hosts whose own clocks disagree still agree. A reading (the heartbeat's, and one
 * when the store opens) is the database's instant against the midpoint of the round trip on this
 * host's clock; the offset is the reading with the shortest round trip of the last few, so it is
 * off by at most half that round trip (a millisecond or two on a LAN). An offset within that
 * uncertainty is taken as 0 (hosts that share one clock keep it exactly).
 */
export class DatabaseClock {
  private readonly readings: Reading[] = [];
  private offset = 0;

  /** This host's clock minus the database's, ms (0 until the first reading). */
  get offsetMs(): number {
    return this.offset;
  }

  /** Now on the database's clock, ms since the epoch. */
  readonly now = (): number => Date.now() - this.offset;

  /** Runs `read` (a statement returning the database's instant in ms) and notes the reading; returns the database's instant. */
  async measure(read: () => Promise<number>): Promise<number> {
    const sentAt = Date.now();
    const began = performance.now();
    const databaseNow = await read();
    const roundTripMs = performance.now() - began;
    this.note(sentAt + roundTripMs / 2 - databaseNow, roundTripMs);
    return databaseNow;
  }

  private note(offsetMs: number, roundTripMs: number): void {
    this.readings.push({ roundTripMs, offsetMs });
    if (this.readings.length > READINGS_KEPT) this.readings.shift();
    let best = this.readings[0]!;
    for (const r of this.readings) if (r.roundTripMs < best.roundTripMs) best = r;
    // Half the round trip, the database's rounding to a millisecond and Date.now's own.
    const uncertainty = best.roundTripMs / 2 + 2;
    this.offset = Math.abs(best.offsetMs) <= uncertainty ? 0 : Math.round(best.offsetMs);
  }
}
