import { DAY_MS, HOUR_MS, ceilTo } from '../timeRanges.js';
import { pendingOccurrenceReads } from './pendingOccurrenceReads.js';
import type { ReadDb } from './ReadDb.js';

export interface CreatedGroup {
  type: string;
  status: string;
  n: number;
}

/**
 * Compact occurrences (all Pending) created in [?, ?) by their schedule's type: counted per
 * schedule in the creation-time index's range (migration 16), then named by type. Read through
 * the view, the planner walked the schedules by type and every compact row of each.
 */
const COMPACT_CREATED = `SELECT s.type AS type, 'Pending' AS status, SUM(c.n) AS n
      FROM (SELECT schedule_ref, COUNT(*) AS n FROM pending_occurrences WHERE created_at >= ? AND created_at < ? GROUP BY schedule_ref) AS c
      JOIN occurrence_schedules r ON r.ref = c.schedule_ref JOIN tasks s ON s.id = r.schedule_id GROUP BY s.type`;

/**
 * Tasks created since `fromMs` (or ever), by type and current status, exactly, from the
 * read models: the partial hour at the start from the created_at index (at most one hour of
 * rows), whole hours from stat_created_hour, whole days from stat_created_day.
 */
export function createCreatedInRange(db: ReadDb) {
  const { model, indexedBy } = db.dialect;
  const all = `SELECT type, status, SUM(n) AS n FROM ${model('stat_tasks')} GROUP BY type, status`;
  const sinceSql = (compact: boolean) => `
    SELECT type, status, SUM(n) AS n FROM (
      SELECT type, status, COUNT(*) AS n FROM tasks ${indexedBy('ix_tasks_created')}
        WHERE created_at >= ? AND created_at < ? GROUP BY type, status
      UNION ALL${compact ? ` ${COMPACT_CREATED}
      UNION ALL` : ''} SELECT type, status, n FROM ${model('stat_created_hour')} WHERE hour >= ? AND hour < ?
      UNION ALL SELECT type, status, n FROM ${model('stat_created_day')} WHERE day >= ?
    ) AS created GROUP BY type, status`;
  const since = sinceSql(false);
  // The partial hour counts compact occurrences created in it too (during a backlog only).
  const pending = pendingOccurrenceReads(db);
  const sinceWithCompact = sinceSql(true);
  return async function createdInRange(fromMs: number | null): Promise<CreatedGroup[]> {
    if (fromMs === null) return db.query<CreatedGroup>(all);
    const h1 = ceilTo(fromMs, HOUR_MS);
    const d1 = ceilTo(h1, DAY_MS);
    const models = [h1 / HOUR_MS, d1 / HOUR_MS, d1 / DAY_MS];
    if (pending && fromMs < h1 && (await pending.present())) return db.query<CreatedGroup>(sinceWithCompact, [fromMs, h1, fromMs, h1, ...models]);
    return db.query<CreatedGroup>(since, [fromMs, h1, ...models]);
  };
}
export type CreatedInRange = ReturnType<typeof createCreatedInRange>;
