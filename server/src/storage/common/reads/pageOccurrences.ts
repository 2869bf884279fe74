import type { OccurrencePage } from '../../../contracts/index.js';
import type { PageRequest } from '../../MonitoringStore.js';
import { NON_TERMINAL_OCCURRENCE, OCCURRENCE_COLUMNS, toOccurrenceListItem, type OccurrenceRow } from '../occurrenceRow.js';
import { pagedRows } from './pagedRows.js';
import type { ReadDb } from './ReadDb.js';

/** Occurrences of a durable schedule, newest slot first (unique index on parent and slot). */
export function createPageOccurrences(db: ReadDb) {
  return async function pageOccurrences(
    scheduleId: string,
    nonTerminalOnly: boolean,
    req: PageRequest,
  ): Promise<Omit<OccurrencePage, 'skip' | 'take'>> {
    const from = `FROM tasks WHERE parent_task_id = ?${nonTerminalOnly ? ` AND status IN ${NON_TERMINAL_OCCURRENCE}` : ''}`;
    const { rows, totalCount } = await pagedRows<OccurrenceRow>(db, OCCURRENCE_COLUMNS, from, 'nominal_slot_at DESC', [scheduleId], req);
    return { occurrences: rows.map(toOccurrenceListItem), totalCount };
  };
}
