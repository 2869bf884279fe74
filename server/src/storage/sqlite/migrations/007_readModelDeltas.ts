/**
 * Migration 7: the read models are no longer kept by per-row triggers. Every writer of task
 * rows goes through one storage function that adds up the changes of its transaction per group
 * and writes the sums before that transaction commits (see `storage/sqlite/readModels`); the
 * triggers of migrations 2, 4 and 6 would count every change a second time, so they go.
 * The read-model tables and their contents stay as they are.
 */
export const migration007ReadModelDeltas = `
DROP TRIGGER IF EXISTS tr_tasks_insert_stats;
DROP TRIGGER IF EXISTS tr_tasks_delete_stats;
DROP TRIGGER IF EXISTS tr_tasks_move_stats;
DROP TRIGGER IF EXISTS tr_tasks_run_stats;
DROP TRIGGER IF EXISTS tr_tasks_insert_type_handler;
DROP TRIGGER IF EXISTS tr_tasks_update_type_handler;
DROP TRIGGER IF EXISTS tr_tasks_search_insert;
DROP TRIGGER IF EXISTS tr_tasks_search_delete;
DROP TRIGGER IF EXISTS tr_tasks_search_update;
DROP TRIGGER IF EXISTS tr_tasks_failure_groups;
DROP TRIGGER IF EXISTS tr_tasks_queue_throughput;
`;
