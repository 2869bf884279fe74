import { COUNTERS, type Counter } from '../../common/readModels/counters.js';
import { DELTAS_WRITTEN_SETTING } from '../migrations/005_updateTriggersStepAside.js';
import { TYPE_HANDLERS } from '../migrations/002_readModels.js';
import { FAILED_CTE, deltaStatement } from './readModelDeltas.js';

/**
 * The live trigger functions of `tasks` that append the read-model deltas, generated from the one
 * description of the counters (`common/readModels/counters.ts`): one statement per trigger. The
 * triggers themselves (migration 2) call these functions by name; migrations only install this
 * text (migration 13 first; a change to the counters is installed by a new migration that runs
 * `pgReadModelTriggerFunctions()` again, after creating a new counter's tables).
 */

/** The columns of `moves` from task rows `r`, entering (n = 1) or leaving (n = -1) their group. */
const moveColumns = (r: string, n: number) =>
  `${r}.queue, ${r}.type, ${r}.status, ${r}.is_recurring, (${r}.parent_task_id IS NOT NULL)::int, ${r}.created_at, ${n}`;
const MOVES = 'moves (queue, type, status, is_recurring, is_occurrence, created_at, n) AS MATERIALIZED';
/** An updated row whose status group changed (old and new side by side as o and n). */
const REGROUPED = `o.status IS DISTINCT FROM n.status OR o.queue IS DISTINCT FROM n.queue OR o.type IS DISTINCT FROM n.type
      OR o.is_recurring IS DISTINCT FROM n.is_recurring OR o.parent_task_id IS DISTINCT FROM n.parent_task_id
      OR o.created_at IS DISTINCT FROM n.created_at`;
const UPDATED = 'old_rows o JOIN new_rows n ON n.id = o.id';

/**
 * Transition-table rows up to which a trigger runs its statements as written (their plans kept for
 * the session, as PL/pgSQL keeps every parameterless statement's plan); above it, through EXECUTE.
 */
export const KEPT_PLAN_MAX_ROWS = 100;

/**
 * `statements`, which join the transition table `rows` with itself or a table, planned for the
 * statement at hand when it changed many rows. A plan kept from a session's first firing (over
 * empty tables: one row estimated) may rescan one transition table for each row of the other:
 * harmless for up to KEPT_PLAN_MAX_ROWS rows (at most 10,000 pairs), n × n for a bulk change (a
 * bulk cancel of 20,000 tasks: minutes). Through EXECUTE the statement is planned with the
 * transition tables' real row counts (a hash join); that planning, a millisecond or more, is paid
 * only by the rare big statement, not by the engine's claims and commits of a few rows.
 */
const plannedBySize = (rows: string, statements: readonly string[]) => {
  const sql = statements.map((st) => st.trim().replace(/;$/, ''));
  return `  IF EXISTS (SELECT 1 FROM ${rows} OFFSET ${KEPT_PLAN_MAX_ROWS}) THEN
${sql.map((st) => `    EXECUTE $sql$${st}$sql$;`).join('\n')}
  ELSE
${sql.map((st) => `    ${st};`).join('\n')}
  END IF;`;
};

/**
 * `statement`, which joins a transition table with a table, planned on every firing. Such a plan
 * kept from a session's first firing is wrong for any size: made while the joined table was empty
 * (a new database), it scans that table and rescans the transition table for each of its rows, so
 * even a one-row statement later costs a pass over the whole table, and n rows cost n times that.
 * (A join of the two transition tables with each other, as in the UPDATE trigger, is bounded by
 * the statement's own size: plannedBySize keeps its plan for small statements.)
 */
const alwaysPlanned = (statement: string) => `  -- EXECUTE: planned with this statement's transition table, never a plan kept from an earlier one.
  EXECUTE '${statement}';`;

const fn = (name: string, body: string) => `
CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
BEGIN
${body}
  RETURN NULL;
END $fn$;
`;

/** The trigger functions of `tasks` that append read-model deltas, for `counters` (every counter of the description by default). */
export function pgReadModelTriggerFunctions(counters: readonly Counter[] = COUNTERS): string {
  const inserted = deltaStatement([`${MOVES} (SELECT ${moveColumns('r', 1)} FROM new_rows r)`], ['moves'], counters);
  const deleted = deltaStatement([`${MOVES} (SELECT ${moveColumns('r', -1)} FROM old_rows r)`], ['moves'], counters);
  const updated = deltaStatement(
    [
      `${MOVES} (SELECT ${moveColumns('o', -1)} FROM ${UPDATED} WHERE ${REGROUPED}
        UNION ALL SELECT ${moveColumns('n', 1)} FROM ${UPDATED} WHERE ${REGROUPED})`,
      `ran AS MATERIALIZED (SELECT n.id, n.type, n.queue, n.last_execution_at, n.last_outcome, n.execution_time_ms, n.exception
        FROM ${UPDATED} WHERE n.run_count > o.run_count AND n.last_execution_at IS NOT NULL)`,
      FAILED_CTE,
    ],
    ['moves', 'ran', 'failed'],
    counters,
  );
  return [
    fn('svc_tasks_inserted', `  ${inserted}\n${TYPE_HANDLERS('new_rows')}`),
    fn('svc_tasks_deleted', `  ${deleted}`),
    // The UPDATE trigger steps aside for a statement that appended its own deltas (migration 5).
    fn('svc_tasks_updated', `  IF current_setting('${DELTAS_WRITTEN_SETTING}', true) = 'on' THEN RETURN NULL; END IF;
${plannedBySize('new_rows', [updated, TYPE_HANDLERS(`(SELECT n.type, n.handler FROM ${UPDATED} WHERE o.type IS DISTINCT FROM n.type OR o.handler IS DISTINCT FROM n.handler)`)])}`),
  ].join('');
}

/** Transaction setting by which a writer of compact occurrences says it appended the deltas of its next insert itself. */
export const COMPACT_DELTAS_WRITTEN_SETTING = 'svc_monitor.compact_deltas_written';

/** The `moves` of compact occurrences `rows` (new_rows or old_rows): Pending occurrences in their schedule's group. */
const compactMoves = (rows: string, n: number) =>
  `${MOVES} (
    SELECT s.queue, s.type, 'Pending', 0, 1, r.created_at, ${n}
      FROM ${rows} r JOIN occurrence_schedules o ON o.ref = r.schedule_ref JOIN tasks s ON s.id = o.schedule_id)`;

/**
 * The live trigger functions of `pending_occurrences` (the compact occurrences, migration 19): +1
 * in their schedule's group for each row written, -1 for each row deleted. The insert trigger
 * steps aside, once, for an insert whose writer appended its deltas ahead of it and set
 * COMPACT_DELTAS_WRITTEN_SETTING (the catch-up's COPY: `schedules/insertCompactOccurrences.ts`); it
 * clears the setting, so any later insert of the transaction is counted here again.
 */
export function pgCompactOccurrenceTriggerFunctions(counters: readonly Counter[] = COUNTERS): string {
  const inserted = deltaStatement([compactMoves('new_rows', 1)], ['moves'], counters);
  const deleted = deltaStatement([compactMoves('old_rows', -1)], ['moves'], counters);
  return [
    fn('svc_pending_occurrences_inserted', `  IF current_setting('${COMPACT_DELTAS_WRITTEN_SETTING}', true) = 'on' THEN
    PERFORM set_config('${COMPACT_DELTAS_WRITTEN_SETTING}', 'off', true);
    RETURN NULL;
  END IF;
  ${inserted}`),
    fn('svc_pending_occurrences_deleted', `  ${deleted}`),
  ].join('');
}

/**
 * The live delete triggers of the side tables of `tasks` (argument-search words, migration 9;
 * task keys, migration 23): the rows of the deleted tasks go with them. Both join the deleted
 * rows with their table, so both are planned on every firing (alwaysPlanned; migration 28).
 */
export function pgSideTableDeleteTriggerFunctions(): string {
  return [
    fn('svc_task_search_deleted', alwaysPlanned('DELETE FROM task_search s USING old_rows o WHERE s.seq = o.seq')),
    fn('svc_task_keys_deleted', alwaysPlanned('DELETE FROM task_keys k USING old_rows o WHERE k.seq = o.seq AND o.task_key IS NOT NULL')),
  ].join('');
}
