import type { Database } from 'better-sqlite3';

/** Highest execution-log sequence number of a task (0 when it has none): numbering continues across runs. */
export function prepareLastLogSequence(db: Database): (taskId: string) => number {
  const stmt = db.prepare('SELECT COALESCE(MAX(sequence_number), 0) FROM execution_logs WHERE task_id = ?').pluck();
  return (taskId) => stmt.get(taskId) as number;
}
