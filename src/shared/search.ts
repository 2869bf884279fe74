import type { TaskStatus } from '../../server/src/contracts/task.js';

/** How a task matched a search across environments. */
export type SearchMatch = 'id' | 'type or key' | 'fingerprint';

/** One task one environment answered for a search. */
export interface SearchHit {
  environmentId: string;
  taskId: string;
  type: string;
  status: TaskStatus;
  queueName: string;
  matched: SearchMatch;
  createdAtUtc: string;
  lastExecutionUtc?: string;
  errorSummary?: string;
}

/** What one environment answered: its hits (newest first, at most a page) and how many it has in all. */
export interface SearchAnswer {
  hits: SearchHit[];
  total: number;
}

/** Hits asked of each environment per way of matching. */
export const SEARCH_PAGE_SIZE = 20;
