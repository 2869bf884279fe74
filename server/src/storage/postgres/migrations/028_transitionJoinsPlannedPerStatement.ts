import { pgSideTableDeleteTriggerFunctions } from '../readModels/readModelTriggerFunctions.js';

/**
 * PostgreSQL migration 28: the delete triggers of `tasks` plan their join with the deleted rows
 * each time they fire.
 *
 * A PL/pgSQL statement without parameters keeps the plan it got the first time it ran in a
 * session, until a schema change or an ANALYZE of its tables invalidates it; the size of the
 * transition table (`old_rows`) and of the joined table are those of that first run. A session
 * whose first delete of tasks found `task_search` or `task_keys` empty (a new database: the
 * migrations analyze both while empty) kept a nested loop over that table with the transition
 * table rescanned for each of its rows: a later delete of n tasks in that session compared n × n
 * pairs (20,000 tasks: minutes of one backend's CPU, no wait). Run through EXECUTE, the statement
 * is planned on every firing with the transition table's real row count and the table's current
 * size (an index probe per deleted row, or one hash join), at a planning cost of a fraction of a
 * millisecond per DELETE statement. The functions' live text is `pgSideTableDeleteTriggerFunctions`.
 */
export const pgMigration028TransitionJoinsPlannedPerStatement = pgSideTableDeleteTriggerFunctions();
