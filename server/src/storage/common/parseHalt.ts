import type { HaltBlock } from '../../contracts/index.js';
import { toIso } from './time.js';
import { jsonObject } from './jsonObject.js';

const instant = (v: unknown): string | undefined => {
  if (typeof v === 'number' && Number.isFinite(v)) return toIso(v);
  if (typeof v === 'string' && !Number.isNaN(Date.parse(v))) return new Date(v).toISOString();
  return undefined;
};

/**
 * The halt block (why a catch-up halted over its cap) is stored as JSON on the schedule row by the schedule manager;
 * instants may be stored as ms or ISO strings. Unreadable JSON yields no block, never an error.
 */
export function parseHalt(text: string | null, fallbackVersion: number | null): HaltBlock | undefined {
  const h = jsonObject(text);
  if (h === undefined) return undefined;
  const atUtc = instant(h.atUtc ?? h.at ?? h.atMs);
  if (atUtc === undefined) return undefined;
  const detected = Number(h.detectedAtLeast ?? 0);
  const version = Number(h.scheduleVersion ?? fallbackVersion ?? 1);
  return {
    atUtc,
    reason: typeof h.reason === 'string' ? h.reason : 'OverflowCapExceeded',
    detectedAtLeast: Number.isFinite(detected) ? detected : 0,
    isExact: h.isExact !== false,
    cursorUtc: instant(h.cursorUtc ?? h.cursor ?? h.cursorMs),
    scheduleVersion: Number.isFinite(version) ? version : 1,
  };
}
