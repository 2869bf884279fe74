import type { DashboardRange, FailureGroups } from '../../../contracts/index.js';
import { FAILURE_GROUP_ORDER, failureGroupBuckets, toFailureGroup, type FailureGroupRow } from '../../queries/failureGroupRows.js';
import { rangeStartMs } from '../../queries/timeRanges.js';
import type { PgQuery } from './PgQuery.js';

const AGG = `type, fingerprint, SUM(n) AS n, MIN(first_seen) AS first_seen, MAX(last_seen) AS last_seen,
  (array_agg(sample_task_id ORDER BY last_seen DESC, sample_task_id DESC))[1] AS sample_task_id`;

/**
 * Failed runs whose end falls in the range, grouped by task type and error fingerprint, from the
 * failure-group buckets (hours for the first partial day, days after). Largest groups first.
 */
export function pgFailureGroups(q: PgQuery) {
  return async function failureGroups(range: DashboardRange, nowMs: number): Promise<FailureGroups> {
    const from = rangeStartMs(range, nowMs);
    let rows: FailureGroupRow[];
    if (from === null) rows = await q<FailureGroupRow>(`SELECT ${AGG} FROM failure_groups_day_v ${FAILURE_GROUP_ORDER}`);
    else {
      const { h0, d1h, d1d } = failureGroupBuckets(from);
      rows = await q<FailureGroupRow>(
        `SELECT ${AGG} FROM (SELECT * FROM failure_groups_hour_v WHERE bucket >= $1 AND bucket < $2
           UNION ALL SELECT * FROM failure_groups_day_v WHERE bucket >= $3) AS failures ${FAILURE_GROUP_ORDER}`,
        [h0, d1h, d1d],
      );
    }
    return { range, groups: rows.map(toFailureGroup) };
  };
}
