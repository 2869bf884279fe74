import type { Database } from 'better-sqlite3';
import type { DashboardRange, FailureGroup, FailureGroups } from '../../contracts/index.js';
import { toIso } from '../time.js';
import type { SchemaFeatures } from './schemaFeatures.js';
import { DAY_MS, HOUR_MS, ceilTo, floorTo, rangeStartMs } from './timeRanges.js';

interface Row {
  type: string;
  fingerprint: string;
  n: number;
  first_seen: number;
  last_seen: number;
  sample_task_id: string;
}

/** Groups shown at most (the largest first). */
const MAX_GROUPS = 200;

/**
 * Failed runs whose end falls in the range, grouped by task type and exception fingerprint,
 * from the failure-group buckets (hour buckets for the first partial day, day buckets after):
 * O(groups × buckets), never the task table. Largest groups first, then the most recent.
 */
export function createFailureGroups(db: Database, features: Pick<SchemaFeatures, 'failureGroups'>) {
  if (!features.failureGroups) {
    return (range: DashboardRange): FailureGroups => ({ range, groups: [] });
  }
  // The sample is the one of the most recent bucket: the largest zero-padded "last_seen + id".
  const agg = `type, fingerprint, SUM(n) AS n, MIN(first_seen) AS first_seen, MAX(last_seen) AS last_seen,
    substr(MAX(printf('%016d', last_seen) || sample_task_id), 17) AS sample_task_id`;
  const order = `GROUP BY type, fingerprint ORDER BY n DESC, last_seen DESC LIMIT ${MAX_GROUPS}`;
  const all = db.prepare(`SELECT ${agg} FROM failure_groups_day ${order}`);
  const since = db.prepare(`SELECT ${agg} FROM (
      SELECT * FROM failure_groups_hour WHERE bucket >= @h0 AND bucket < @d1h
      UNION ALL SELECT * FROM failure_groups_day WHERE bucket >= @d1d) ${order}`);
  return function failureGroups(range: DashboardRange, nowMs: number): FailureGroups {
    const from = rangeStartMs(range, nowMs);
    let rows: Row[];
    if (from === null) rows = all.all() as Row[];
    else {
      const h0 = floorTo(from, HOUR_MS);
      const d1 = ceilTo(h0, DAY_MS);
      rows = since.all({ h0: h0 / HOUR_MS, d1h: d1 / HOUR_MS, d1d: d1 / DAY_MS }) as Row[];
    }
    const groups: FailureGroup[] = rows.map((r) => ({
      taskType: r.type,
      fingerprint: r.fingerprint,
      count: r.n,
      firstSeenUtc: toIso(r.first_seen),
      lastSeenUtc: toIso(r.last_seen),
      sampleTaskId: r.sample_task_id,
    }));
    return { range, groups };
  };
}
