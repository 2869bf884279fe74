import type { Database } from 'better-sqlite3';
import type { AttemptFailure } from '../../EngineStore.js';

/**
 * A failed attempt with retries left: the row stays InProgress; attempt count and last error text
 * are kept. Only on the row still carrying the run (its token); false otherwise.
 */
export function prepareRecordAttemptFailures(db: Database): (f: AttemptFailure) => boolean {
  const stmt = db.prepare(`UPDATE tasks SET attempt = ?, exception = ? WHERE id = ? AND status = 'InProgress' AND run_token = ?`);
  return (f) => stmt.run(f.attempt, f.exception, f.id, f.token).changes === 1;
}
