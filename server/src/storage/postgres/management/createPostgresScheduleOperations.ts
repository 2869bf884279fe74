import type { PoolClient } from 'pg';
import type { OperationResult } from '../../../contracts/index.js';
import type { PostgresStorage } from '../PostgresStorage.js';
import { retryingConflicts } from '../connection/storeClient.js';
import { pgCancelScheduleAndSkipped } from './cancelSchedule.js';
import { pgReleaseHalt } from './releaseHalt.js';
import { pgRequeueOccurrence } from './requeueOccurrence.js';
import { OPERATION_COLUMNS, type OperationRow } from './OperationRow.js';

export interface StorageScheduleOperations {
  requeue(occurrenceId: string): Promise<OperationResult>;
  resume(key: string): Promise<OperationResult>;
  cancel(key: string): Promise<OperationResult>;
}

/**
 * Requeue, resume and cancel as storage operations: any process connected to the store (a
 * headless `serve --database postgres://…` included) performs them in one transaction with the
 * rows locked, then wakes the engine instances. Their instants (a requeued occurrence's due time)
 * are on the database's clock, as the engines that compare them.
 */
export function createPostgresScheduleOperations(storage: PostgresStorage, now: () => number = storage.clock.now): StorageScheduleOperations {
  const transaction = <T>(work: (c: PoolClient) => Promise<T>): Promise<T> => retryingConflicts(() => storage.transaction(work));
  const byKey = (key: string, run: (c: PoolClient, row: OperationRow) => Promise<OperationResult>) => {
    if (typeof key !== 'string' || key === '') return Promise.resolve<OperationResult>({ status: 'NotFound', message: 'A schedule key is required.' });
    return transaction(async (c) => {
      const { rows } = await c.query<OperationRow>(
        `SELECT ${OPERATION_COLUMNS} FROM tasks
          WHERE task_key = $1 AND is_recurring = 1 AND occurrence_mode = 'Durable' AND parent_task_id IS NULL
          ORDER BY created_at DESC, seq DESC LIMIT 1 FOR UPDATE`,
        [key],
      );
      const row = rows[0];
      if (!row) return { status: 'NotFound', message: `No durable schedule with key "${key}".` } satisfies OperationResult;
      const result = await run(c, row);
      if (result.status === 'Succeeded') await storage.events.wake(c);
      return result;
    });
  };
  return {
    requeue: (occurrenceId) =>
      transaction(async (c) => {
        const result = await pgRequeueOccurrence(c, occurrenceId, now());
        if (result.status === 'Succeeded') await storage.events.wake(c);
        return result;
      }),
    resume: (key) => byKey(key, (c, row) => pgReleaseHalt(c, row)),
    cancel: (key) => pgCancelScheduleAndSkipped(storage, (run) => byKey(key, run), now()),
  };
}
