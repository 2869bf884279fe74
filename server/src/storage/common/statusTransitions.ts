import type { TaskStatus } from '../../contracts/task.js';
import { INITIAL_STATUSES, TASK_TRANSITIONS, TWO_STEP_WRITES } from '../../contracts/taskTransitions.js';

/**
 * The transition table (contracts/taskTransitions.ts) as the task writers of both backends
 * enforce it. A status write the table does not list is refused: the row is not written (the
 * writer's WHERE names only the allowed prior statuses, or the writer skips the row), and the
 * refusal is a bug report: a warning in the log, a counter tests read, and, with
 * SVC_MONITOR_STRICT_TRANSITIONS=1 (on in the test suite), an exception, so a test that drives a
 * path into a disallowed transition fails. Writing a row's own status again is no transition.
 */

/** Environment switch under which a refused transition throws (the suite sets it). */
export const STRICT_TRANSITIONS_ENV = 'SVC_MONITOR_STRICT_TRANSITIONS';

const allowed = new Set<string>();
const priors = new Map<string, TaskStatus[]>();
for (const [from, tos] of Object.entries(TASK_TRANSITIONS) as [TaskStatus, readonly TaskStatus[]][]) {
  for (const to of tos) {
    allowed.add(`${from}>${to}`);
    priors.set(to, [...(priors.get(to) ?? []), from]);
  }
}

/** A write of a status the transition table refuses (thrown in strict mode only). */
export class RefusedTransitionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RefusedTransitionError';
  }
}

let refused = 0;

/** Transitions refused since the process started (every backend, every writer). */
export function refusedTransitionCount(): number {
  return refused;
}

/** The statuses from which a row may move to `to` (the transition table read backwards). */
export function priorStatuses(to: TaskStatus): readonly TaskStatus[] {
  return priors.get(to) ?? [];
}

/** Whether a row in `from` may be written with status `to` (the same status is no transition). */
export function transitionAllowed(from: string, to: string): boolean {
  return from === to || allowed.has(`${from}>${to}`);
}

/** Whether a new row may start in `status`. */
export function initialStatusAllowed(status: string): boolean {
  return (INITIAL_STATUSES as readonly string[]).includes(status);
}

/**
 * Reports a refused status write as a bug: `writer` names the code path, `ids` the rows (empty
 * when the refusal is found while building a statement, before any row is chosen); `written`
 * when the check came after the write (the net behind a writer whose own guard let it through).
 */
export function reportRefusedTransition(writer: string, from: string | null, to: string, ids: readonly string[] = [], written = false): void {
  refused++;
  const rows = ids.length === 0 ? '' : ` (rows ${ids.slice(0, 5).join(', ')}${ids.length > 5 ? `, … ${ids.length} in all` : ''})`;
  const outcome = written ? 'it got past the writer\'s guard and was written' : 'the rows were not written';
  const message = `Bug: ${writer} attempted the status change ${from ?? '(new row)'} → ${to}, which the transition table refuses${rows}; ${outcome}.`;
  if (process.env[STRICT_TRANSITIONS_ENV] === '1') throw new RefusedTransitionError(message);
  process.emitWarning(message, 'SvcMonitorRefusedTransition');
}

/** Whether `from → to` may be written; a refused one is reported (see `reportRefusedTransition`). */
export function checkTransition(writer: string, from: string, to: string, ids?: readonly string[]): boolean {
  if (transitionAllowed(from, to)) return true;
  reportRefusedTransition(writer, from, to, ids);
  return false;
}

/**
 * Whether one write may carry `from → through → to`: a two-step write the contract lists, each
 * step a transition of the table. A refused one is reported like a refused transition.
 */
export function checkTwoStepWrite(writer: string, from: TaskStatus, through: TaskStatus, to: TaskStatus, ids?: readonly string[]): boolean {
  const listed = TWO_STEP_WRITES.some(([f, b, t]) => f === from && b === through && t === to);
  if (listed && transitionAllowed(from, through) && transitionAllowed(through, to)) return true;
  reportRefusedTransition(writer, from, `${through} → ${to} (in one write)`, ids);
  return false;
}

/**
 * The condition of a status-changing UPDATE on its rows' prior status, generated from the
 * transition table: `column IN (...)` of the statuses `from` names that may move to `to` (all
 * allowed prior statuses when `from` is omitted). A named status the table refuses is reported
 * when the statement is built and left out, so such a row is never written. Dialect-free SQL.
 */
export function priorStatusCondition(writer: string, column: string, to: TaskStatus, from: readonly TaskStatus[] = priorStatuses(to)): string {
  const kept = from.filter((s) => checkTransition(writer, s, to));
  return kept.length === 0 ? 'false' : `${column} IN (${kept.map((s) => `'${s}'`).join(', ')})`;
}
