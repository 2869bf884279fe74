import { DELTAS_WRITTEN_SETTING } from './005_updateTriggersStepAside.js';
import { TYPE_HANDLERS } from './002_readModels.js';
import { FAILED_CTE, deltaStatement } from '../readModels/readModelDeltas.js';

/**
 * PostgreSQL migration 13: the statement triggers of `tasks` append the read-model deltas built
 * from the one description in `readModelDeltas.ts` (as the fast commit does), one statement per
 * trigger instead of one per read model, and the UPDATE trigger takes over the finished-runs
 * trigger's counters (failure groups, queue throughput), which is dropped.
 *
 * Unlike the migrations before it, this text follows the description: a change to COUNTERS is
 * installed by appending a migration that runs `pgReadModelTriggerFunctions()` again (a new
 * counter's table first). A fresh database running this one before that table exists is fine:
 * PL/pgSQL resolves tables when a function runs, and no row is written during the migrations.
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

const fn = (name: string, body: string) => `
CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
BEGIN
${body}
  RETURN NULL;
END $fn$;
`;

/** The trigger functions of `tasks` that append read-model deltas, generated from the description. */
export function pgReadModelTriggerFunctions(): string {
  const inserted = deltaStatement([`${MOVES} (SELECT ${moveColumns('r', 1)} FROM new_rows r)`], ['moves']);
  const deleted = deltaStatement([`${MOVES} (SELECT ${moveColumns('r', -1)} FROM old_rows r)`], ['moves']);
  const updated = deltaStatement(
    [
      `${MOVES} (SELECT ${moveColumns('o', -1)} FROM ${UPDATED} WHERE ${REGROUPED}
        UNION ALL SELECT ${moveColumns('n', 1)} FROM ${UPDATED} WHERE ${REGROUPED})`,
      `ran AS MATERIALIZED (SELECT n.id, n.type, n.queue, n.last_execution_at, n.last_outcome, n.execution_time_ms, n.exception
        FROM ${UPDATED} WHERE n.run_count > o.run_count AND n.last_execution_at IS NOT NULL)`,
      FAILED_CTE,
    ],
    ['moves', 'ran', 'failed'],
  );
  return [
    fn('svc_tasks_inserted', `  ${inserted}\n${TYPE_HANDLERS('new_rows')}`),
    fn('svc_tasks_deleted', `  ${deleted}`),
    // The UPDATE trigger steps aside for a statement that appended its own deltas (migration 5).
    fn('svc_tasks_updated', `  IF current_setting('${DELTAS_WRITTEN_SETTING}', true) = 'on' THEN RETURN NULL; END IF;
  ${updated}
${TYPE_HANDLERS(`(SELECT n.type, n.handler FROM ${UPDATED} WHERE o.type IS DISTINCT FROM n.type OR o.handler IS DISTINCT FROM n.handler)`)}`),
  ].join('');
}

export const pgMigration013ReadModelDeltasFromOneDescription = `${pgReadModelTriggerFunctions()}
DROP TRIGGER tr_tasks_runs_finished ON tasks;
DROP FUNCTION svc_tasks_runs_finished();
`;
