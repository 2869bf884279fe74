import type { CreatedGroup } from '../../queries/createdInRange.js';
import { DAY_MS, HOUR_MS, ceilTo } from '../../queries/timeRanges.js';
import type { PgQuery } from './PgQuery.js';

/**
 * Tasks created since `fromMs` (or ever), by type and current status, exactly: the partial hour at
 * the start from the created_at index, whole hours and whole days from the creation counters.
 */
export function pgCreatedInRange(q: PgQuery) {
  return async function createdInRange(fromMs: number | null): Promise<CreatedGroup[]> {
    if (fromMs === null) {
      return q<CreatedGroup>(`SELECT type, status, SUM(n) AS n FROM stat_tasks_v GROUP BY type, status`);
    }
    const h1 = ceilTo(fromMs, HOUR_MS);
    const d1 = ceilTo(h1, DAY_MS);
    return q<CreatedGroup>(
      `SELECT type, status, SUM(n) AS n FROM (
         SELECT type, status, COUNT(*) AS n FROM tasks WHERE created_at >= $1 AND created_at < $2 GROUP BY type, status
         UNION ALL SELECT type, status, n FROM stat_created_hour_v WHERE hour >= $3 AND hour < $4
         UNION ALL SELECT type, status, n FROM stat_created_day_v WHERE day >= $5
       ) AS created GROUP BY type, status`,
      [fromMs, h1, h1 / HOUR_MS, d1 / HOUR_MS, d1 / DAY_MS],
    );
  };
}
export type PgCreatedInRange = ReturnType<typeof pgCreatedInRange>;
