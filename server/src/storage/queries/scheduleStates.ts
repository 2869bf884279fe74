import type { Database } from 'better-sqlite3';
import type { ScheduleStates } from '../MonitoringStore.js';
import { ACTIVE_SCHEDULES_SQL, HALTED_SCHEDULES_SQL } from '../sql/scheduleStates.js';

/** Durable schedules by state, each count over its own partial index (O(schedules)). */
export function createScheduleStates(db: Database) {
  const active = db.prepare(ACTIVE_SCHEDULES_SQL).pluck();
  const halted = db.prepare(HALTED_SCHEDULES_SQL).pluck();
  return function scheduleStates(): ScheduleStates {
    return { active: active.get() as number, halted: halted.get() as number };
  };
}
