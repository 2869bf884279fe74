import type { OccurrencePage } from '../../../contracts/index.js';
import type { PageRequest } from '../../MonitoringStore.js';
import { NON_TERMINAL_OCCURRENCE, OCCURRENCE_COLUMNS, toOccurrenceListItem, type OccurrenceRow } from '../occurrenceRow.js';
import { pagedRows } from './pagedRows.js';
import { PENDING_OCCURRENCE_TASKS, pendingOccurrenceReads } from './pendingOccurrenceReads.js';
import { queryOne, type ReadDb } from './ReadDb.js';

/** Occurrences of a durable schedule, newest slot first (unique index on parent and slot). */
export function createPageOccurrences(db: ReadDb) {
  const pending = pendingOccurrenceReads(db);

  /**
   * With compact occurrences: the task rows' and the compact rows' pages merged by slot (a slot
   * has one occurrence, in one of them). Compact occurrences are Pending: not terminal.
   */
  async function withCompact(tasksWhere: string, scheduleId: string, req: PageRequest): Promise<{ rows: OccurrenceRow[]; totalCount: number }> {
    const compactWhere = `FROM ${PENDING_OCCURRENCE_TASKS} WHERE parent_task_id = ?`;
    const side = (from: string) => `SELECT * FROM (SELECT ${OCCURRENCE_COLUMNS} ${from} ORDER BY nominal_slot_at DESC LIMIT ?) AS side`;
    const [count, rows] = await Promise.all([
      queryOne<{ n: number }>(db, `SELECT (SELECT COUNT(*) ${tasksWhere}) + (SELECT COUNT(*) ${compactWhere}) AS n`, [scheduleId, scheduleId]),
      req.take === 0
        ? Promise.resolve([])
        : db.query<OccurrenceRow>(
            `SELECT * FROM (${side(tasksWhere)} UNION ALL ${side(compactWhere)}) AS slots ORDER BY nominal_slot_at DESC LIMIT ? OFFSET ?`,
            [scheduleId, req.skip + req.take, scheduleId, req.skip + req.take, req.take, req.skip],
          ),
    ]);
    return { rows, totalCount: count.n };
  }

  return async function pageOccurrences(
    scheduleId: string,
    nonTerminalOnly: boolean,
    req: PageRequest,
  ): Promise<Omit<OccurrencePage, 'skip' | 'take'>> {
    const from = `FROM tasks WHERE parent_task_id = ?${nonTerminalOnly ? ` AND status IN ${NON_TERMINAL_OCCURRENCE}` : ''}`;
    const { rows, totalCount } =
      pending && (await pending.present())
        ? await withCompact(from, scheduleId, req)
        : await pagedRows<OccurrenceRow>(db, OCCURRENCE_COLUMNS, from, 'nominal_slot_at DESC', [scheduleId], req);
    return { occurrences: rows.map(toOccurrenceListItem), totalCount };
  };
}
