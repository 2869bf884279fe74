/** Display helpers: local time with UTC available on hover, durations, numbers. */
import type { DashboardRange } from '../../server/src/contracts/task.js';

/** The time ranges the overview and statistics pages offer, as segmented-control options. */
export const RANGES: readonly { value: DashboardRange; label: string }[] = [
  { value: 'Today', label: 'Today' },
  { value: 'Week', label: 'Week' },
  { value: 'Month', label: 'Month' },
  { value: 'All', label: 'All' },
];

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const timeOnly = new Intl.DateTimeFormat(undefined, { timeStyle: 'medium' });
const shortDay = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' });
const shortHour = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const integer = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });
const decimal = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });
const oneDecimal = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });

export function formatLocal(iso: string | undefined | null): string {
  if (!iso) return '—';
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : dateTime.format(t);
}
const compactDay = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
/** Time only for today, otherwise day and minute: for dense tables (full date in the tooltip). */
export function formatCompact(iso: string | undefined | null, now: Date = new Date()): string {
  if (!iso) return '—';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const d = new Date(t);
  const sameDay = d.getFullYear() === now.getFullYear() && d.getMonth() === now.getMonth() && d.getDate() === now.getDate();
  return sameDay ? timeOnly.format(t) : compactDay.format(t);
}
export function formatLocalTime(iso: string | number | undefined | null): string {
  if (iso === undefined || iso === null) return '—';
  const t = typeof iso === 'number' ? iso : Date.parse(iso);
  return Number.isNaN(t) ? String(iso) : timeOnly.format(t);
}
export function formatUtc(iso: string | undefined | null): string {
  if (!iso) return '';
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : `${new Date(t).toISOString().replace('T', ' ').replace(/\.\d+Z$/, '').replace('Z', '')} UTC`;
}
export function formatBucket(iso: string, hourly: boolean): string {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : hourly ? shortHour.format(t) : shortDay.format(t);
}
export function formatDuration(ms: number | undefined | null): string {
  if (ms === undefined || ms === null || Number.isNaN(ms)) return '—';
  if (ms < 1_000) return `${ms < 10 ? decimal.format(ms) : ms < 100 ? oneDecimal.format(ms) : integer.format(ms)} ms`;
  if (ms < 60_000) return `${decimal.format(ms / 1_000)} s`;
  const totalSeconds = Math.round(ms / 1_000);
  const h = Math.floor(totalSeconds / 3_600);
  const m = Math.floor((totalSeconds % 3_600) / 60);
  const s = totalSeconds % 60;
  return h > 0 ? `${h}h ${m}m` : `${m}m ${s}s`;
}
export function formatSeconds(seconds: number): string {
  return formatDuration(seconds * 1_000);
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
/** datetime-local input value (local) ↔ ISO UTC. */
export function localInputToIso(value: string): string | undefined {
  if (!value) return undefined;
  const t = new Date(value).getTime();
  return Number.isNaN(t) ? undefined : new Date(t).toISOString();
}
export function isoToLocalInput(iso: string | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
