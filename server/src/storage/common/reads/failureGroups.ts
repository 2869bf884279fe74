import type { DashboardRange, FailureGroups } from '../../../contracts/index.js';
import { FAILURE_GROUP_ORDER, failureGroupBuckets, toFailureGroup, type FailureGroupRow } from '../failureGroupRows.js';
import { rangeStartMs } from '../timeRanges.js';
import type { ReadDb } from './ReadDb.js';

/**
 * Failed runs whose end falls in the range, grouped by task type and exception fingerprint,
 * from the failure-group buckets (hour buckets for the first partial day, day buckets after):
 * O(groups × buckets), never the task table. Largest groups first, then the most recent.
 */
export function createFailureGroups(db: ReadDb) {
  if (!db.features.failureGroups) {
    return async (range: DashboardRange): Promise<FailureGroups> => ({ range, groups: [] });
  }
  const { model, latestOf } = db.dialect;
  // The sample is the one of the most recent bucket.
  const agg = `type, fingerprint, SUM(n) AS n, MIN(first_seen) AS first_seen, MAX(last_seen) AS last_seen,
    ${latestOf('sample_task_id', 'last_seen')} AS sample_task_id`;
  const all = `SELECT ${agg} FROM ${model('failure_groups_day')} ${FAILURE_GROUP_ORDER}`;
  const since = `SELECT ${agg} FROM (
      SELECT * FROM ${model('failure_groups_hour')} WHERE bucket >= ? AND bucket < ?
      UNION ALL SELECT * FROM ${model('failure_groups_day')} WHERE bucket >= ?) AS failures ${FAILURE_GROUP_ORDER}`;
  return async function failureGroups(range: DashboardRange, nowMs: number): Promise<FailureGroups> {
    const from = rangeStartMs(range, nowMs);
    let rows: FailureGroupRow[];
    if (from === null) rows = await db.query<FailureGroupRow>(all);
    else {
      const { h0, d1h, d1d } = failureGroupBuckets(from);
      rows = await db.query<FailureGroupRow>(since, [h0, d1h, d1d]);
    }
    return { range, groups: rows.map(toFailureGroup) };
  };
}
