import type { SvcEvent, SvcEventKind } from '../contracts/index.js';
import { buildEvent } from './buildEvent.js';
import type { ActiveRun } from './RunLifecycle.js';

/** The Started event of an attempt's delivery, with the time the task waited since it became due. */
export function startedEvent(at: number, run: ActiveRun): SvcEvent {
  const dueAt = run.row.scheduled_at ?? run.row.created_at;
  const waitTimeMs = Math.max(0, at - dueAt);
  return buildEvent('Started', at, run.row, `Task started (attempt ${run.attempt})`, { attempt: run.attempt, waitTimeMs });
}

/**
 * Builds the event of a run's end lazily: it is emitted after the commit that writes the end,
 * when the run's execution-log rows have their ids. Cancelled events carry no logs.
 */
export function runEvent(
  kind: SvcEventKind,
  run: ActiveRun,
  clock: () => number,
  message: string,
  extras: { exception?: string | null; executionTimeMs?: number },
): () => SvcEvent {
  return () =>
    buildEvent(kind, clock(), run.row, message, {
      ...extras,
      attempt: run.attempt,
      ...(kind === 'Cancelled' ? {} : { executionLogs: run.log.entries }),
    });
}
