import type { OperationResult } from '../../contracts/index.js';
import type { BulkOperation } from '../../contracts/index.js';
import type { TaskManagementStore } from '../../storage/TaskManagementStore.js';

import { BulkRunner, type BulkProgressListener, type BulkRunnerDeps, type BulkStart } from './BulkRunner.js';

/** Operations a person asks for on task rows: retry one task, bulk actions over many. */
export interface TaskOperations {
  /**
   * Puts a Failed, Cancelled or ServiceStopped one-shot task back in the queue (same id and
   * history, one status-audit entry naming `actor`). NotFound for an unknown id; Conflict
   * with the reason for a row it does not apply to.
   */
  retry(id: string, actor: string): Promise<OperationResult>;
  /** Starts a bulk action in the background; see BulkRunner. */
  startBulk(input: BulkStart): BulkOperation;
  bulkStatus(operationId: string): BulkOperation | undefined;
  onBulkProgress(listener: BulkProgressListener): void;
  offBulkProgress(listener: BulkProgressListener): void;
  /** Resolves when no bulk action is running. */
  bulkIdle(): Promise<void>;
}

export function createTaskOperations(deps: BulkRunnerDeps & { store: TaskManagementStore }): TaskOperations {
  const bulk = new BulkRunner(deps);
  return {
    async retry(id, actor) {
      if (typeof id !== 'string' || id.length === 0) throw new TypeError('retry: id must be a task id (GUID string)');
      const r = await deps.store.retryTask({ id, now: deps.now(), actor });
      if (r.status === 'Succeeded') deps.wake();
      return r;
    },
    startBulk: (input) => bulk.start(input),
    bulkStatus: (operationId) => bulk.get(operationId),
    onBulkProgress: (l) => bulk.onProgress(l),
    offBulkProgress: (l) => bulk.offProgress(l),
    bulkIdle: () => bulk.idle(),
  };
}
