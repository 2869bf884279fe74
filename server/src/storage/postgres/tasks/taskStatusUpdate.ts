import type { TaskStatus } from '../../../contracts/task.js';
import { checkTransition, priorStatusCondition } from '../../common/statusTransitions.js';

/** A status-changing UPDATE of `tasks` (aliased `t`), as `taskStatusUpdate` builds it. */
export interface StatusUpdate {
  /** The code path, named when the transition table refuses one of its changes. */
  writer: string;
  /**
   * The status written: one status, or an SQL expression (over `t` and `using`) together with
   * every status it can give (each must be allowed from each of `from`).
   */
  to: TaskStatus | { expr: string; statuses: readonly TaskStatus[] };
  /** The statuses the rows are chosen from (default, for a single target: every status the table lets move to it). */
  from?: readonly TaskStatus[];
  /** Further assignments, e.g. `scheduled_at = $1`. */
  set?: string;
  /** A FROM list the rows are joined to (e.g. `unnest($1::text[]) AS r(id)`). */
  using?: string;
  /** Which rows, besides their prior status. */
  where: string;
  returning?: string;
}

/**
 * The one builder of PostgreSQL's status-changing UPDATEs: every statement that writes
 * `tasks.status` is built here, and its WHERE names only the prior statuses the transition table
 * allows for its target (contracts/taskTransitions.ts), so a row in any other status is not
 * written. A status the caller names that the table refuses is reported as a bug when the
 * statement is built (see `storage/common/statusTransitions.ts`) and left out. The read models
 * follow through the UPDATE triggers (or the fast commit's own deltas).
 */
export function taskStatusUpdate(u: StatusUpdate): string {
  let status: string;
  let guard: string;
  if (typeof u.to === 'string') {
    status = `'${u.to}'`;
    guard = priorStatusCondition(u.writer, 't.status', u.to, u.from);
  } else {
    const targets = u.to.statuses;
    if (u.from === undefined) throw new Error(`${u.writer}: a status written by an expression needs the statuses its rows come from`);
    // A prior status is kept only when it may move to every status the expression can give.
    const kept = u.from.filter((s) => targets.every((to) => checkTransition(u.writer, s, to)));
    status = u.to.expr;
    // The expression's value is checked too: a row whose expression gives another status is not written.
    guard = kept.length === 0 ? 'false' : `t.status IN (${quoted(kept)}) AND (${u.to.expr}) IN (${quoted(targets)})`;
  }
  return `UPDATE tasks t SET status = ${status}${u.set ? `, ${u.set}` : ''}${u.using ? ` FROM ${u.using}` : ''}
    WHERE (${u.where}) AND ${guard}${u.returning ? ` RETURNING ${u.returning}` : ''}`;
}

const quoted = (statuses: readonly string[]) => statuses.map((s) => `'${s}'`).join(', ');

/** The rows (read in the same transaction) that may move to `to`; the others are reported and left out. */
export function rowsAllowedTo<R extends { id: string; status: string }>(writer: string, rows: readonly R[], to: TaskStatus): R[] {
  return rows.filter((r) => checkTransition(writer, r.status, to, [r.id]));
}
