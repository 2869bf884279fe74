import type { Database } from 'better-sqlite3';
import type { OccurrencePage } from '../../contracts/index.js';
import type { PageRequest } from '../MonitoringStore.js';
import { NON_TERMINAL_OCCURRENCE, OCCURRENCE_COLUMNS, toOccurrenceListItem, type OccurrenceRow } from './occurrenceRow.js';

/** Occurrences of a durable schedule, newest slot first (unique index on parent and slot). */
export function createPageOccurrences(db: Database) {
  const pageAll = db.prepare(
    `SELECT ${OCCURRENCE_COLUMNS} FROM tasks WHERE parent_task_id = ? ORDER BY nominal_slot_at DESC LIMIT ? OFFSET ?`,
  );
  const pageOpen = db.prepare(
    `SELECT ${OCCURRENCE_COLUMNS} FROM tasks WHERE parent_task_id = ? AND status IN ${NON_TERMINAL_OCCURRENCE} ORDER BY nominal_slot_at DESC LIMIT ? OFFSET ?`,
  );
  const countAll = db.prepare(`SELECT COUNT(*) FROM tasks WHERE parent_task_id = ?`).pluck();
  const countOpen = db.prepare(`SELECT COUNT(*) FROM tasks WHERE parent_task_id = ? AND status IN ${NON_TERMINAL_OCCURRENCE}`).pluck();

  return function pageOccurrences(
    scheduleId: string,
    nonTerminalOnly: boolean,
    req: PageRequest,
  ): Omit<OccurrencePage, 'skip' | 'take'> {
    const totalCount = (nonTerminalOnly ? countOpen : countAll).get(scheduleId) as number;
    const rows = req.take === 0 ? [] : ((nonTerminalOnly ? pageOpen : pageAll).all(scheduleId, req.take, req.skip) as OccurrenceRow[]);
    return { occurrences: rows.map(toOccurrenceListItem), totalCount };
  };
}
