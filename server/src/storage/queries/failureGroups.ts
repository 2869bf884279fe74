import type { Database } from 'better-sqlite3';
import type { DashboardRange, FailureGroups } from '../../contracts/index.js';
import { FAILURE_GROUP_ORDER, failureGroupBuckets, toFailureGroup, type FailureGroupRow } from './failureGroupRows.js';
import type { SchemaFeatures } from './schemaFeatures.js';
import { rangeStartMs } from './timeRanges.js';

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
  const all = db.prepare(`SELECT ${agg} FROM failure_groups_day ${FAILURE_GROUP_ORDER}`);
  const since = db.prepare(`SELECT ${agg} FROM (
      SELECT * FROM failure_groups_hour WHERE bucket >= @h0 AND bucket < @d1h
      UNION ALL SELECT * FROM failure_groups_day WHERE bucket >= @d1d) ${FAILURE_GROUP_ORDER}`);
  return function failureGroups(range: DashboardRange, nowMs: number): FailureGroups {
    const from = rangeStartMs(range, nowMs);
    const rows = (from === null ? all.all() : since.all(failureGroupBuckets(from))) as FailureGroupRow[];
    return { range, groups: rows.map(toFailureGroup) };
  };
}
