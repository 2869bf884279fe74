/**
 * The wall time of an instant in an IANA time zone, and the zone's offset from UTC, read from
 * the runtime's own zone data (Intl). The engine's durable schedules and storage's zoned
 * calendars both read zones through this module; it imports nothing else of the package.
 */

/** Local calendar fields of an instant (month 1–12, hour 0–23). */
export interface WallFields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** Caches stay bounded: Intl accepts every spelling of a zone's name in any letter case. */
const CACHE_LIMIT = 10_000;

const knownZones = new Map<string, boolean>();

/** True when the runtime knows the zone (IANA name such as "America/Los_Angeles", or "UTC"); answers cached. */
export function isKnownTimeZone(zone: string): boolean {
  let known = knownZones.get(zone);
  if (known === undefined) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: zone });
      known = true;
    } catch {
      known = false;
    }
    if (knownZones.size < CACHE_LIMIT) knownZones.set(zone, known);
  }
  return known;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    if (formatters.size >= CACHE_LIMIT) formatters.clear();
    formatters.set(zone, f);
  }
  return f;
}

/** The wall-clock fields of `zone` at the instant `utcMs` (to the second). Throws a RangeError for an unknown zone. */
export function wallFields(zone: string, utcMs: number): WallFields {
  const w: WallFields = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 };
  for (const p of formatterOf(zone).formatToParts(Math.floor(utcMs / 1000) * 1000)) {
    switch (p.type) {
      case 'year': w.year = Number(p.value); break;
      case 'month': w.month = Number(p.value); break;
      case 'day': w.day = Number(p.value); break;
      case 'hour': w.hour = Number(p.value); break;
      case 'minute': w.minute = Number(p.value); break;
      case 'second': w.second = Number(p.value); break;
    }
  }
  return w;
}

/** Offset of `zone` at the instant `utcMs`: local wall time minus UTC, in milliseconds. */
export function zoneOffsetMs(zone: string, utcMs: number): number {
  if (zone === 'UTC' || zone === 'Etc/UTC') return 0;
  const floored = Math.floor(utcMs / 1000) * 1000;
  const w = wallFields(zone, floored);
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - floored;
}
