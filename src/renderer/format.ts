/** Display helpers: times in the viewer's zone with UTC on hover, durations, numbers. */
import type { DashboardRange } from '../../server/src/contracts/task.js';

/** The time ranges the overview and statistics pages offer, as segmented-control options. */
export const RANGES: readonly { value: DashboardRange; label: string }[] = [
  { value: 'Today', label: 'Today' },
  { value: 'Week', label: 'Week' },
  { value: 'Month', label: 'Month' },
  { value: 'All', label: 'All' },
];

/** Formatters per (zone, style), created once: `zone` undefined = the browser's zone. */
const cache = new Map<string, Intl.DateTimeFormat>();
function fmt(zone: string | undefined, style: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${zone ?? ''}|${style}`;
  let f = cache.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(undefined, { ...options, timeZone: zone });
    cache.set(key, f);
  }
  return f;
}
const STYLES = {
  dateTime: { dateStyle: 'medium', timeStyle: 'medium' },
  timeOnly: { timeStyle: 'medium' },
  precise: { hour: '2-digit', minute: '2-digit', second: '2-digit', fractionalSecondDigits: 3, hourCycle: 'h23' },
  preciseDay: { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', fractionalSecondDigits: 3, hourCycle: 'h23' },
  shortDay: { month: 'short', day: 'numeric' },
  shortHour: { hour: '2-digit', minute: '2-digit' },
  compactDay: { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' },
  ymd: { year: 'numeric', month: '2-digit', day: '2-digit' },
} satisfies Record<string, Intl.DateTimeFormatOptions>;
const style = (zone: string | undefined, name: keyof typeof STYLES) => fmt(zone, name, STYLES[name]);
const integer = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });
const decimal = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });
const oneDecimal = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });

const toMs = (v: string | number): number => (typeof v === 'number' ? v : Date.parse(v));

/** `t` in style `today` when it falls on the viewer's today in `zone`, else in style `otherDay`. */
function byDay(t: number, now: Date, zone: string | undefined, today: keyof typeof STYLES, otherDay: keyof typeof STYLES): string {
  const day = style(zone, 'ymd');
  return style(zone, day.format(t) === day.format(now) ? today : otherDay).format(t);
}

/** Date and time (seconds) in `zone`. */
export function formatLocal(iso: string | undefined | null, zone?: string): string {
  if (!iso) return '—';
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : style(zone, 'dateTime').format(t);
}
/** Time only for the viewer's today, otherwise day and minute: for dense tables (full date in the tooltip). */
export function formatCompact(iso: string | undefined | null, now: Date = new Date(), zone?: string): string {
  if (!iso) return '—';
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : byDay(t, now, zone, 'timeOnly', 'compactDay');
}
export function formatLocalTime(iso: string | number | undefined | null, zone?: string): string {
  if (iso === undefined || iso === null) return '—';
  const t = toMs(iso);
  return Number.isNaN(t) ? String(iso) : style(zone, 'timeOnly').format(t);
}
/** Millisecond precision, where order matters (status timelines); the day when it is not today. */
export function formatPrecise(iso: string | undefined | null, now: Date = new Date(), zone?: string): string {
  if (!iso) return '—';
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : byDay(t, now, zone, 'precise', 'preciseDay');
}
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto', style: 'long' });
/** "3 minutes ago", "in 2 hours": for lists (the absolute time goes in the tooltip). */
export function formatRelative(iso: string | undefined | null, nowMs: number = Date.now()): string {
  if (!iso) return '—';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const diff = t - nowMs;
  const abs = Math.abs(diff);
  if (abs < 10_000) return diff <= 0 ? 'just now' : 'in a few seconds';
  const units: [Intl.RelativeTimeFormatUnit, number][] = [
    ['second', 60_000],
    ['minute', 3_600_000],
    ['hour', 86_400_000],
    ['day', 30 * 86_400_000],
    ['month', 365 * 86_400_000],
  ];
  const size: Record<string, number> = { second: 1_000, minute: 60_000, hour: 3_600_000, day: 86_400_000, month: 30 * 86_400_000, year: 365 * 86_400_000 };
  const unit = units.find(([, below]) => abs < below)?.[0] ?? 'year';
  return relative.format(Math.trunc(diff / size[unit]!), unit);
}
export function formatUtc(iso: string | undefined | null): string {
  if (!iso) return '';
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : `${new Date(t).toISOString().replace('T', ' ').replace('Z', '')} UTC`;
}
export function formatBucket(iso: string, hourly: boolean, zone?: string): string {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : hourly ? style(zone, 'shortHour').format(t) : style(zone, 'shortDay').format(t);
}
export function formatDuration(ms: number | undefined | null): string {
  if (ms === undefined || ms === null || Number.isNaN(ms)) return '—';
  if (ms < 1_000) return `${ms < 10 ? decimal.format(ms) : ms < 100 ? oneDecimal.format(ms) : integer.format(ms)} ms`;
  if (ms < 60_000) return `${decimal.format(ms / 1_000)} s`;
  const totalSeconds = Math.round(ms / 1_000);
  const h = Math.floor(totalSeconds / 3_600);
  const m = Math.floor((totalSeconds % 3_600) / 60);
  const s = totalSeconds % 60;
  if (h >= 48) return `${integer.format(Math.floor(h / 24))}d ${h % 24}h`;
  return h > 0 ? `${h}h ${m}m` : `${m}m ${s}s`;
}
export function formatSeconds(seconds: number): string {
  return formatDuration(seconds * 1_000);
}
/** Durations inside text from the service ("took 3439.089 ms") in human units. */
export function humanizeMessage(text: string): string {
  return text.replace(/(\d+(?:\.\d+)?)\s?ms\b/g, (_m, n: string) => formatDuration(Number(n)));
}
export function formatInt(n: number | undefined | null): string {
  return n === undefined || n === null ? '—' : integer.format(n);
}
export function formatPercent(n: number | undefined | null): string {
  return n === undefined || n === null ? '—' : `${decimal.format(n)}%`;
}
/** Last dotted segment of a type name. */
export function shortType(type: string): string {
  const clean = type.split(',')[0] ?? type;
  const parts = clean.split('.');
  return parts[parts.length - 1] || type;
}
export function prettyJson(text: string | undefined): string {
  if (text === undefined || text === '') return '';
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
const wallFormats = new Map<string, Intl.DateTimeFormat>();
/** Wall-clock fields of instant `t` in `zone` (`zone` undefined = the browser's zone). */
function wallFields(t: number, zone: string | undefined): { y: number; mo: number; d: number; h: number; mi: number; s: number } {
  const key = zone ?? '';
  let f = wallFormats.get(key);
  if (!f) {
    // A fixed locale with Latin digits: the parts are read back as numbers.
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
    wallFormats.set(key, f);
  }
  const parts: Record<string, number> = {};
  for (const p of f.formatToParts(t)) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return { y: parts.year!, mo: parts.month!, d: parts.day!, h: parts.hour! % 24, mi: parts.minute!, s: parts.second! };
}
/** Offset of `zone` from UTC at instant `t`, in ms (wall clock minus UTC). */
function zoneOffsetMs(t: number, zone: string | undefined): number {
  const w = wallFields(t, zone);
  return Date.UTC(w.y, w.mo - 1, w.d, w.h, w.mi, w.s) - (t - (((t % 1000) + 1000) % 1000));
}
const INPUT_VALUE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;
/**
 * datetime-local input value, read as a wall-clock time in `zone` (undefined = the browser's
 * zone), → ISO UTC. A time skipped by a daylight-saving jump resolves with the offset in force
 * before the jump (02:30 on a spring-forward night is 03:30 after it); a time that occurs twice
 * resolves to its first occurrence.
 */
export function zonedInputToIso(value: string, zone?: string): string | undefined {
  const m = INPUT_VALUE.exec(value);
  if (!m) return undefined;
  const wall = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6] ?? 0));
  if (Number.isNaN(wall)) return undefined;
  // The instant is wall − offset, where the offset is the one in force at that instant: try the
  // offsets around the wall time and keep the earliest instant whose wall clock reads back equal.
  const before = zoneOffsetMs(wall - 86_400_000, zone);
  const after = zoneOffsetMs(wall + 86_400_000, zone);
  const candidates = [...new Set([before, after])].map((o) => wall - o).sort((a, b) => a - b);
  for (const t of candidates) {
    if (zoneOffsetMs(t, zone) === wall - t) return new Date(t).toISOString();
  }
  return new Date(wall - before).toISOString();
}
/** ISO UTC → datetime-local input value showing its wall-clock time in `zone` (undefined = the browser's zone). */
export function isoToZonedInput(iso: string | undefined, zone?: string): string {
  if (!iso) return '';
  const t = new Date(iso).getTime();
  if (Number.isNaN(t)) return '';
  const w = wallFields(t, zone);
  const pad = (n: number, l = 2) => String(n).padStart(l, '0');
  return `${pad(w.y, 4)}-${pad(w.mo)}-${pad(w.d)}T${pad(w.h)}:${pad(w.mi)}`;
}
