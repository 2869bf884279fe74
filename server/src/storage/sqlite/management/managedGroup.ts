import type { TaskGroup } from '../readModels/readModelDeltas.js';
import type { ManagedTaskRow } from '../../common/ManagedTaskRow.js';

/** The read-model group of a task row read with its group columns (management reads, the engine store's claimed rows). */
export function managedGroup(row: Pick<ManagedTaskRow, 'queue' | 'type' | 'is_recurring' | 'parent_task_id' | 'created_at'>): TaskGroup {
  return { queue: row.queue, type: row.type, is_recurring: row.is_recurring, is_occurrence: row.parent_task_id === null ? 0 : 1, created_at: row.created_at };
}
