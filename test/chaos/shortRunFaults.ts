import type { FaultKind } from './runChaos.js';

/**
 * The faults of the short runs in `npm test`: each that the code of this branch survives. The long
 * run (`npm run chaos`) injects every kind; the kinds left out here find defects of issue 42 that
 * are being fixed elsewhere, and come back in once those fixes land:
 * - PostgreSQL `clock` (host clocks off by up to ±5 s): runs begin twice in two processes, since
 *   reservation holds and rate windows compare one host's times with another's clock (issue 42, 2: pg-clock);
 * - PostgreSQL `pause` (SIGSTOP past the lease, then SIGCONT): a resumed process begins handlers for rows
 *   it had reserved before, whose reservations lapsed and were taken over meanwhile (issue 42, 5: run-fences);
 * - PostgreSQL `kill` and `term` (both restart the process): right after an instance starts, a row is begun
 *   by two instances (the starting instance's recovery re-queues rows another live instance holds;
 *   issue 42, 1 and 5: recovery of live instances' rows, start() running before recovery ends).
 */
export const SHORT_RUN_FAULTS: Record<'sqlite' | 'postgres', readonly FaultKind[]> = {
  sqlite: ['kill', 'pause', 'term', 'clock', 'cancel', 'bulkCancel', 'retry', 'bulkRetry', 'requeue', 'scheduleCancel'],
  postgres: ['pgTerminate', 'cancel', 'bulkCancel', 'retry', 'bulkRetry', 'requeue', 'scheduleCancel'],
};
