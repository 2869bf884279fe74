/**
 * Migration 13: how many times each task's run was abandoned while running.
 *
 * A run is abandoned when its process dies (found InProgress at the next start) or, on a store
 * shared by several processes, when its instance loses its lease. Each recovery adds one; past
 * the engine's `maxAbandoned` the task ends Failed instead of running again, so a task that kills
 * its process cannot loop forever. The PostgreSQL schema has the same column.
 */
export const migration013AbandonedCount = `
ALTER TABLE tasks ADD COLUMN abandoned_count INTEGER NOT NULL DEFAULT 0;
`;
