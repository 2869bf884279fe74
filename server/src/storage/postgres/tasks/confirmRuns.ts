import type { PostgresStorage } from '../PostgresStorage.js';
import type { RunCheck, RunCheckAnswer } from '../../EngineStore.js';
import { DB_NOW_MS } from '../connection/databaseClock.js';

/**
 * Whether runs about to begin a handler attempt are still this instance's, in one read (no
 * write, no WAL flush): a first attempt's row Queued under its very reservation by this instance,
 * a retry's row InProgress under its run token. A run still held answers null (wait) instead of true when
 * this instance's heartbeat is older than `aliveWithinMs` by the database clock: its lease may be
 * running out and another instance may take its rows at any moment, so none begins until a
 * heartbeat is written.
 */
export async function confirmRuns(storage: PostgresStorage, checks: readonly RunCheck[], instanceId: string, aliveWithinMs: number): Promise<RunCheckAnswer> {
  if (checks.length === 0) return [];
  const { rows } = await storage.query<{ alive: boolean; held: number[] | null }>(
    `SELECT EXISTS (SELECT 1 FROM engine_instances WHERE id = $4 AND heartbeat_at >= ${DB_NOW_MS} - $5) AS alive,
            ARRAY(SELECT c.n::int FROM unnest($1::text[], $2::bigint[], $3::text[]) WITH ORDINALITY AS c(id, reserved_at, token, n)
                    JOIN tasks t ON t.id = c.id
                   WHERE CASE WHEN c.token IS NULL THEN t.status = 'Queued' AND t.reserved_by = $4 AND t.reserved_at = c.reserved_at
                              ELSE t.status = 'InProgress' AND t.run_token = c.token END) AS held`,
    [checks.map((c) => c.id), checks.map((c) => c.reservedAt), checks.map((c) => c.token), instanceId, aliveWithinMs],
  );
  const row = rows[0]!;
  const held = new Set(row.held ?? []);
  return checks.map((_, i) => (held.has(i + 1) ? (row.alive ? true : null) : false));
}
