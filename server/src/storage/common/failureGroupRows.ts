import type { FailureGroup } from '../../contracts/index.js';
import { toIso } from './time.js';
import { DAY_MS, HOUR_MS, ceilTo, floorTo } from './timeRanges.js';

/** One failure group as a bucket row holds it, and as the group queries of both backends answer it. */
export interface FailureGroupRow {
  type: string;
  fingerprint: string;
  n: number;
  first_seen: number;
  last_seen: number;
  sample_task_id: string;
}

/** Groups shown at most. */
export const MAX_FAILURE_GROUPS = 200;

/** One row per type and fingerprint: the largest groups first, then the most recent. */
export const FAILURE_GROUP_ORDER = `GROUP BY type, fingerprint ORDER BY n DESC, last_seen DESC LIMIT ${MAX_FAILURE_GROUPS}`;

/**
 * The buckets a range that starts at `fromMs` reads: the hour buckets from its first whole hour
 * up to the next day boundary (`h0` ≤ bucket < `d1h`), then the day buckets from there (`d1d`).
 */
export function failureGroupBuckets(fromMs: number): { h0: number; d1h: number; d1d: number } {
  const h0 = floorTo(fromMs, HOUR_MS);
  const d1 = ceilTo(h0, DAY_MS);
  return { h0: h0 / HOUR_MS, d1h: d1 / HOUR_MS, d1d: d1 / DAY_MS };
}

export function toFailureGroup(r: FailureGroupRow): FailureGroup {
  return {
    taskType: r.type,
    fingerprint: r.fingerprint,
    count: r.n,
    firstSeenUtc: toIso(r.first_seen),
    lastSeenUtc: toIso(r.last_seen),
    sampleTaskId: r.sample_task_id,
  };
}
