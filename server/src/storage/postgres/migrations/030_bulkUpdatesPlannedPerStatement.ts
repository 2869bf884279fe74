import { pgReadModelTriggerFunctions } from '../readModels/readModelTriggerFunctions.js';

/**
 * PostgreSQL migration 30: the UPDATE trigger of `tasks` plans its joins of the old and new rows
 * for the statement at hand when it changed more than KEPT_PLAN_MAX_ROWS rows
 * (`readModelTriggerFunctions.ts`). A plan kept from a session's first UPDATE of tasks over empty
 * tables rescanned the new rows for each old row: a bulk cancel or requeue of n tasks compared
 * n × n pairs three times (20,000 tasks: minutes). Small updates (claims, completions) keep their
 * plans, as before.
 */
export const pgMigration030BulkUpdatesPlannedPerStatement = pgReadModelTriggerFunctions();
