import type { TaskStatus } from '../../contracts/index.js';
import type { TaskState } from '../EngineStore.js';

/** The columns retry and the bulk actions check before they change a row: the engine's own, and a few more. */
export interface ManagedTaskRow extends TaskState {
  is_recurring: 0 | 1;
  created_at: number;
  /** Status of the occurrence's schedule row (null: not an occurrence, or the schedule row is gone). */
  parent_status: TaskStatus | null;
}
