import type { FaultKind } from './runChaos.js';

/**
 * The faults of the short runs in `npm test`: every kind the harness injects (the long run,
 * `npm run chaos`, injects the same). PostgreSQL's own restart is not a kind: the machine's
 * server is shared. A kind that finds a defect again is left out here only with the defect named.
 */
export const SHORT_RUN_FAULTS: Record<'sqlite' | 'postgres', readonly FaultKind[]> = {
  sqlite: ['kill', 'pause', 'term', 'clock', 'cancel', 'bulkCancel', 'retry', 'bulkRetry', 'requeue', 'scheduleCancel'],
  postgres: ['kill', 'pause', 'term', 'clock', 'pgTerminate', 'cancel', 'bulkCancel', 'retry', 'bulkRetry', 'requeue', 'scheduleCancel'],
};
