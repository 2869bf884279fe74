/**
 * The UTC offsets of an IANA time zone by local day, and the mapping of a local wall-clock
 * time to the one instant a durable schedule uses for it: a wall time that does not exist (DST
 * spring-forward gap) maps to nothing; an ambiguous one (fall-back overlap) maps to its first
 * occurrence only.
 *
 * Wall times are written as "local epoch ms": Date.UTC(y, m, d, h, mi, s) of the local fields.
 */
import { zoneOffsetMs } from '../../time/wallTime.js';

const DAY_MS = 86_400_000;

export interface DayOffsets {
  /** Offset before a transition near this day (or the only offset). */
  before: number;
  after: number;
  /** First instant with offset `after` (only when before !== after). */
  transitionAt: number;
}

/** Per-zone cache of offsets by local day; one instance per zone. */
export class ZoneClock {
  private readonly days = new Map<number, DayOffsets>();
  private readonly fixed: boolean;

  constructor(readonly zone: string) {
    this.fixed = zone === 'UTC' || zone === 'Etc/UTC';
  }

  offsetsOfDay(dayIndex: number): DayOffsets {
    let o = this.days.get(dayIndex);
    if (o) return o;
    if (this.fixed) {
      o = { before: 0, after: 0, transitionAt: 0 };
    } else {
      const localMidnight = dayIndex * DAY_MS;
      // Every instant whose wall time falls on this day lies strictly between lo and hi.
      const lo = localMidnight - DAY_MS;
      const hi = localMidnight + 2 * DAY_MS;
      const before = zoneOffsetMs(this.zone, lo);
      const after = zoneOffsetMs(this.zone, hi);
      let transitionAt = 0;
      if (before !== after) {
        let a = lo, b = hi; // offset(a) = before, offset(b) = after
        while (b - a > 1000) {
          const mid = Math.floor((a + b) / 2000) * 1000;
          if (mid <= a) break;
          if (zoneOffsetMs(this.zone, mid) === before) a = mid;
          else b = mid;
        }
        transitionAt = b;
      }
      o = { before, after, transitionAt };
    }
    if (this.days.size > 50_000) this.days.clear();
    this.days.set(dayIndex, o);
    return o;
  }

  /** The instant a schedule uses for local wall time `wallMs` on local day `dayIndex`, or null. */
  instantOf(dayIndex: number, wallMs: number): number | null {
    return instantFor(this.offsetsOfDay(dayIndex), wallMs);
  }

  /** Local day index (floor(localMs / day)) of an instant. */
  dayOf(utcMs: number): number {
    return Math.floor((utcMs + zoneOffsetMs(this.zone, utcMs)) / DAY_MS);
  }
}

/** Maps a wall time of a day with offsets `o` to its instant (see ZoneClock.instantOf). */
export function instantFor(o: DayOffsets, wallMs: number): number | null {
  if (o.before === o.after) return wallMs - o.before;
  const first = wallMs - o.before;
  if (first < o.transitionAt) return first; // exists before the transition (first of an ambiguous pair)
  const second = wallMs - o.after;
  if (second >= o.transitionAt) return second;
  return null; // inside a spring-forward gap
}
