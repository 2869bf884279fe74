import type { PoolClient } from 'pg';
import type { StoredHalt } from '../../EngineStore.js';

/** Halts a schedule row (its halt kept as JSON) and moves its displayed next slot. */
export async function setScheduleHalt(c: PoolClient, id: string, halt: StoredHalt, nextSlotAt: number | null): Promise<void> {
  await c.query(`UPDATE tasks SET halt = $1, scheduled_at = $2 WHERE id = $3`, [JSON.stringify(halt), nextSlotAt, id]);
}
