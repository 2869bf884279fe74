import type { ScheduleStates } from '../../MonitoringStore.js';
import { ACTIVE_SCHEDULES_SQL, HALTED_SCHEDULES_SQL } from '../../sql/scheduleStates.js';
import type { PgQuery } from './PgQuery.js';

/** Durable schedules by state, each count over its own partial index (O(schedules)). */
export function pgScheduleStates(q: PgQuery) {
  return async function scheduleStates(): Promise<ScheduleStates> {
    const [[active], [halted]] = await Promise.all([
      q<{ n: number }>(`SELECT (${ACTIVE_SCHEDULES_SQL})::int AS n`),
      q<{ n: number }>(`SELECT (${HALTED_SCHEDULES_SQL})::int AS n`),
    ]);
    return { active: active?.n ?? 0, halted: halted?.n ?? 0 };
  };
}
