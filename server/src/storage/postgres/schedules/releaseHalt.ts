import type { PoolClient } from 'pg';

/** Drops the halt of a schedule row (cursor and backlog kept); false when it had none. Written once for the engine's store and the storage operation. */
export async function releaseHalt(c: PoolClient, id: string): Promise<boolean> {
  const res = await c.query(`UPDATE tasks SET halt = NULL WHERE id = $1 AND halt IS NOT NULL`, [id]);
  return (res.rowCount ?? 0) === 1;
}
