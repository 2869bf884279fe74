import type { TaskState } from '../EngineStore.js';

/** How many times a run may be abandoned (process died, lease lost) and recovered before its task fails. */
export const DEFAULT_MAX_ABANDONED = 3;

/** The error text of a task failed because its runs kept being abandoned (`times`: a number, or SQL text that yields it). */
export function abandonedRunError(times: number | string): string {
  return `TaskAbandonedError: The task was abandoned ${times} times while running (its process died or lost its lease)`;
}

/** A task that recovery ended Failed (abandoned more than `maxAbandoned` times), for its Failed event. */
export interface AbandonedTask extends Pick<TaskState, 'id' | 'type' | 'handler' | 'request' | 'queue' | 'parent_task_id'> {
  /** The stored error text (abandonedRunError). */
  exception: string;
  /** When recovery failed it (engine clock). */
  failedAt: number;
}
