import type { Database } from 'better-sqlite3';
import { DAY_MS, HOUR_MS, ceilTo } from './timeRanges.js';

export interface CreatedGroup {
  type: string;
  status: string;
  n: number;
}

/**
 * Tasks created since `fromMs` (or ever), by type and current status, exactly, from the
 * read models: the partial hour at the start from the created_at index (at most one hour of
 * rows), whole hours from stat_created_hour, whole days from stat_created_day.
 */
export function createCreatedInRange(db: Database) {
  const all = db.prepare(`SELECT type, status, SUM(n) AS n FROM stat_tasks GROUP BY type, status`);
  const since = db.prepare(`
    SELECT type, status, SUM(n) AS n FROM (
      SELECT type, status, COUNT(*) AS n FROM tasks INDEXED BY ix_tasks_created
        WHERE created_at >= @from AND created_at < @h1 GROUP BY type, status
      UNION ALL SELECT type, status, n FROM stat_created_hour WHERE hour >= @h1h AND hour < @d1h
      UNION ALL SELECT type, status, n FROM stat_created_day WHERE day >= @d1d
    ) GROUP BY type, status`);
  return function createdInRange(fromMs: number | null): CreatedGroup[] {
    if (fromMs === null) return all.all() as CreatedGroup[];
    const h1 = ceilTo(fromMs, HOUR_MS);
    const d1 = ceilTo(h1, DAY_MS);
    return since.all({ from: fromMs, h1, h1h: h1 / HOUR_MS, d1h: d1 / HOUR_MS, d1d: d1 / DAY_MS }) as CreatedGroup[];
  };
}
