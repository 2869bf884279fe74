import type { ReadDb } from './reads/ReadDb.js';

/** The two writes the demo's seeding does beside the engine API (a schedule's existence, a simulated downtime). */
export interface DemoSeedStore {
  hasSchedule(key: string): Promise<boolean>;
  backdate(id: string, cursorAt: number, scheduledAt: number): Promise<void>;
}

/** The demo's seeding writes, once over either backend's dialect. */
export function demoSeedStore(db: ReadDb): DemoSeedStore {
  return {
    hasSchedule: async (key) => (await db.query(`SELECT 1 AS found FROM tasks WHERE task_key = ? AND occurrence_mode = 'Durable'`, [key])).length > 0,
    backdate: async (id, cursorAt, scheduledAt) => void (await db.query(`UPDATE tasks SET cursor_at = ?, scheduled_at = ? WHERE id = ? RETURNING id`, [cursorAt, scheduledAt, id])),
  };
}
