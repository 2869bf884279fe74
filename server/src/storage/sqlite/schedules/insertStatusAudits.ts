import type { Database } from 'better-sqlite3';
import type { TaskStatus } from '../../../contracts/index.js';
import { LEVELS_RECORDING_PLAIN_TRANSITIONS } from '../../common/auditAllows.js';
import { preparedStatement } from './preparedStatement.js';

const RECORDED = JSON.stringify(LEVELS_RECORDING_PLAIN_TRANSITIONS);

/**
 * The same transition, without an error, of every task row above `afterRowid` (rows this
 * transaction inserted, e.g. new occurrences → Pending), in one statement: one audit row each
 * where the row's audit level records such a transition, in the rows' insertion order, at `atMs`
 * (null: each row's own creation time, for rows that were created before they were written).
 */
export function insertStatusAuditsAfterRowid(db: Database, afterRowid: number, newStatus: TaskStatus, atMs: number | null): void {
  preparedStatement(
    db,
    `INSERT INTO status_audit (task_id, updated_at, new_status)
       SELECT id, COALESCE(?, created_at), ? FROM tasks WHERE rowid > ? AND audit_level IN (SELECT value FROM json_each(?)) ORDER BY rowid`,
  ).run(atMs, newStatus, afterRowid, RECORDED);
}
