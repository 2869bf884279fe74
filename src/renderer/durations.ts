import type { TaskSummary } from '../../server/src/contracts/task.js';
import { formatDuration } from './format.js';

export interface RunLength {
  /** What the cell shows. */
  text: string;
  /** Why (tooltip). */
  title: string;
  /** True when the value is the audited wall-clock length of a failed run, not a measured duration. */
  ranFor: boolean;
}

/**
 * How long the last run took, truthfully: a completed run shows its measured duration; a run that
 * failed or timed out (the spec keeps its executionTimeMs at 0) shows how long it actually ran,
 * from its status-audit timestamps, labelled "ran"; without those audits it says "not measured".
 */
export function runLength(t: Pick<TaskSummary, 'status' | 'executionTimeMs' | 'runDurationMs'>): RunLength {
  const measured = t.executionTimeMs;
  const failedRun = t.status === 'Failed' || (measured === 0 && t.runDurationMs !== undefined && t.runDurationMs > 0);
  if (failedRun) {
    if (t.runDurationMs !== undefined) {
      return {
        text: `ran ${formatDuration(t.runDurationMs)}`,
        title: 'The run failed: time between its InProgress and end transitions (status audit). Its measured execution time reads 0.',
        ranFor: true,
      };
    }
    return { text: 'not measured', title: 'The run failed and its start was not audited (audit level below Full).', ranFor: false };
  }
  if (measured === undefined) return { text: '—', title: 'No finished run yet.', ranFor: false };
  return { text: formatDuration(measured), title: 'Measured around the run by the worker.', ranFor: false };
}
