import { describe, expect, it } from 'vitest';
import { DatabaseClock } from '../../../server/src/storage/postgres/connection/databaseClock.js';

/** A reading that answers after `delayMs` with the host's clock less `offsetMs` (the database's instant). */
const reading = (offsetMs: number, delayMs: number) => () =>
  new Promise<number>((resolve) => setTimeout(() => resolve(Date.now() - delayMs / 2 - offsetMs), delayMs));

describe('the database clock as a host reads it', () => {
  it('is the host clock less the offset read; the reading with the shortest round trip wins', async () => {
    const clock = new DatabaseClock();
    expect(clock.offsetMs).toBe(0);
    await clock.measure(reading(5000, 5));
    expect(Math.abs(clock.offsetMs - 5000)).toBeLessThan(20);
    expect(Math.abs(clock.now() - (Date.now() - 5000))).toBeLessThan(20);
    // A slower reading (its midpoint less sure) does not replace a quicker one.
    await clock.measure(reading(7000, 200));
    expect(Math.abs(clock.offsetMs - 5000)).toBeLessThan(20);
  });

  it('an offset within half the round trip is 0: hosts on one clock keep it exactly', async () => {
    const clock = new DatabaseClock();
    await clock.measure(reading(10, 60));
    expect(clock.offsetMs).toBe(0);
    expect(clock.now()).toBeLessThanOrEqual(Date.now());
  });

  it('forgets readings past the last 8: a clock stepped since is followed', async () => {
    const clock = new DatabaseClock();
    await clock.measure(reading(-3000, 1));
    for (let i = 0; i < 8; i++) await clock.measure(reading(4000, 20));
    expect(Math.abs(clock.offsetMs - 4000)).toBeLessThan(40);
  });
});
