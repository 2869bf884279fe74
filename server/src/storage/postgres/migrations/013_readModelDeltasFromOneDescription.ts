import { pgReadModelTriggerFunctions } from '../readModels/readModelTriggerFunctions.js';

/**
 * PostgreSQL migration 13: the statement triggers of `tasks` append the read-model deltas built
 * from the one description of the counters (`common/readModels/counters.ts`), as the fast commit
 * does, one statement per trigger instead of one per read model, and the UPDATE trigger takes
 * over the finished-runs trigger's counters (failure groups, queue throughput), which is dropped.
 *
 * Unlike the migrations before it, this text follows the description: the live function text is
 * `readModels/readModelTriggerFunctions.ts`, and a change to the counters is installed by
 * appending a migration that runs `pgReadModelTriggerFunctions()` again (a new counter's tables
 * first). A database that ran this migration keeps what it installed until that later migration;
 * a fresh database running it before a new counter's table exists is fine: PL/pgSQL resolves
 * tables when a function runs, and no row is written during the migrations.
 */
export const pgMigration013ReadModelDeltasFromOneDescription = `${pgReadModelTriggerFunctions()}
DROP TRIGGER tr_tasks_runs_finished ON tasks;
DROP FUNCTION svc_tasks_runs_finished();
`;
