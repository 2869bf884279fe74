import { Cron } from 'croner';
import { isKnownTimeZone } from '../time/wallTime.js';

/** Inline recurring definition, stored as JSON in tasks.recurrence. */
export interface Recurrence {
  /** Interval in ms (fixed rate), or */
  every?: number;
  /** a cron pattern (5 or 6 fields) evaluated in `timeZone`. */
  cron?: string;
  timeZone?: string;
  maxRuns?: number;
  /** No run after this instant (ms). */
  until?: number;
}

/** Throws an Error naming the problem when the IANA zone is unknown. */
export function assertTimeZone(timeZone: string, optionName = 'timeZone'): void {
  if (!isKnownTimeZone(timeZone)) throw new RangeError(`${optionName}: unknown IANA time zone "${timeZone}"`);
}

const crons = new Map<string, Cron>();

/** A paused croner job for pattern + zone (validated; throws naming the pattern). */
export function cronFor(pattern: string, timeZone: string | undefined): Cron {
  const key = `${timeZone ?? 'UTC'}\u0000${pattern}`;
  let c = crons.get(key);
  if (c === undefined) {
    try {
      c = new Cron(pattern, { timezone: timeZone ?? 'UTC', paused: true });
    } catch (e) {
      throw new RangeError(`cron: invalid pattern "${pattern}": ${(e as Error).message}`);
    }
    if (crons.size > 1000) crons.clear();
    crons.set(key, c);
  }
  return c;
}

/**
 * The first due instant strictly after `afterMs` (cron), or the next fixed-rate slot after `prevDue`
 * that is later than `afterMs` (interval). Null when the series has no further slot (until, or a
 * cron that never fires).
 */
export function nextDue(r: Recurrence, afterMs: number, prevDue?: number): number | null {
  let next: number | null;
  if (r.every !== undefined) {
    const base = prevDue ?? afterMs;
    next = base + r.every;
    if (next <= afterMs) next = base + (Math.floor((afterMs - base) / r.every) + 1) * r.every;
  } else if (r.cron !== undefined) {
    const d = cronFor(r.cron, r.timeZone).nextRun(new Date(afterMs));
    next = d === null ? null : d.getTime();
  } else {
    next = null;
  }
  if (next !== null && r.until !== undefined && next > r.until) return null;
  return next;
}
