import type { OccurrencePage } from '../../../contracts/index.js';
import type { PageRequest } from '../../MonitoringStore.js';
import { NON_TERMINAL_OCCURRENCE, OCCURRENCE_COLUMNS, toOccurrenceListItem, type OccurrenceRow } from '../../queries/occurrenceRow.js';
import type { PgQuery } from './PgQuery.js';

/** Occurrences of a durable schedule, newest slot first (unique index on parent and slot). */
export function pgPageOccurrences(q: PgQuery) {
  return async function pageOccurrences(
    scheduleId: string,
    nonTerminalOnly: boolean,
    req: PageRequest,
  ): Promise<Omit<OccurrencePage, 'skip' | 'take'>> {
    const filter = nonTerminalOnly ? `AND status IN ${NON_TERMINAL_OCCURRENCE}` : '';
    const [count, rows] = await Promise.all([
      q<{ n: number }>(`SELECT COUNT(*) AS n FROM tasks WHERE parent_task_id = $1 ${filter}`, [scheduleId]),
      req.take === 0
        ? Promise.resolve([])
        : q<OccurrenceRow>(
            `SELECT ${OCCURRENCE_COLUMNS} FROM tasks WHERE parent_task_id = $1 ${filter} ORDER BY nominal_slot_at DESC LIMIT $2 OFFSET $3`,
            [scheduleId, req.take, req.skip],
          ),
    ]);
    return { occurrences: rows.map(toOccurrenceListItem), totalCount: count[0]!.n };
  };
}
