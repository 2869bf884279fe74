import type { Database } from 'better-sqlite3';

/** A failed attempt with retries left: the row stays InProgress; attempt count and last error text are kept. */
export function prepareRecordAttemptFailure(db: Database): (id: string, attempt: number, exception: string) => boolean {
  const stmt = db.prepare(`UPDATE tasks SET attempt = ?, exception = ? WHERE id = ? AND status = 'InProgress'`);
  return (id, attempt, exception) => stmt.run(attempt, exception, id).changes === 1;
}
