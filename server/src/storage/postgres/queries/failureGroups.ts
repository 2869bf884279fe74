import type { DashboardRange, FailureGroup, FailureGroups } from '../../../contracts/index.js';
import { DAY_MS, HOUR_MS, ceilTo, floorTo, rangeStartMs } from '../../queries/timeRanges.js';
import { toIso } from '../../time.js';
import type { PgQuery } from './PgQuery.js';

interface Row {
  type: string;
  fingerprint: string;
  n: number;
  first_seen: number;
  last_seen: number;
  sample_task_id: string;
}

const MAX_GROUPS = 200;
const AGG = `type, fingerprint, SUM(n) AS n, MIN(first_seen) AS first_seen, MAX(last_seen) AS last_seen,
  (array_agg(sample_task_id ORDER BY last_seen DESC, sample_task_id DESC))[1] AS sample_task_id`;
const ORDER = `GROUP BY type, fingerprint ORDER BY n DESC, last_seen DESC LIMIT ${MAX_GROUPS}`;

/**
 * Failed runs whose end falls in the range, grouped by task type and error fingerprint, from the
 * failure-group buckets (hours for the first partial day, days after). Largest groups first.
 */
export function pgFailureGroups(q: PgQuery) {
  return async function failureGroups(range: DashboardRange, nowMs: number): Promise<FailureGroups> {
    const from = rangeStartMs(range, nowMs);
    let rows: Row[];
    if (from === null) rows = await q<Row>(`SELECT ${AGG} FROM failure_groups_day_v ${ORDER}`);
    else {
      const h0 = floorTo(from, HOUR_MS);
      const d1 = ceilTo(h0, DAY_MS);
      rows = await q<Row>(
        `SELECT ${AGG} FROM (SELECT * FROM failure_groups_hour_v WHERE bucket >= $1 AND bucket < $2
           UNION ALL SELECT * FROM failure_groups_day_v WHERE bucket >= $3) AS failures ${ORDER}`,
        [h0 / HOUR_MS, d1 / HOUR_MS, d1 / DAY_MS],
      );
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
