import { DAY_MS, HOUR_MS, ceilTo } from '../timeRanges.js';
import type { ReadDb } from './ReadDb.js';

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
export function createCreatedInRange(db: ReadDb) {
  const { model, indexedBy } = db.dialect;
  const all = `SELECT type, status, SUM(n) AS n FROM ${model('stat_tasks')} GROUP BY type, status`;
  const since = `
    SELECT type, status, SUM(n) AS n FROM (
      SELECT type, status, COUNT(*) AS n FROM tasks ${indexedBy('ix_tasks_created')}
        WHERE created_at >= ? AND created_at < ? GROUP BY type, status
      UNION ALL SELECT type, status, n FROM ${model('stat_created_hour')} WHERE hour >= ? AND hour < ?
      UNION ALL SELECT type, status, n FROM ${model('stat_created_day')} WHERE day >= ?
    ) AS created GROUP BY type, status`;
  return function createdInRange(fromMs: number | null): Promise<CreatedGroup[]> {
    if (fromMs === null) return db.query<CreatedGroup>(all);
    const h1 = ceilTo(fromMs, HOUR_MS);
    const d1 = ceilTo(h1, DAY_MS);
    return db.query<CreatedGroup>(since, [fromMs, h1, h1 / HOUR_MS, d1 / HOUR_MS, d1 / DAY_MS]);
  };
}
export type CreatedInRange = ReturnType<typeof createCreatedInRange>;
