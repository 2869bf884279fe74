/**
 * PostgreSQL migration 7: the index keeping task keys unique among open rows covers inline
 * recurring rows too. Their occurrence mode is NULL, which made the schedule-row exclusion of
 * the index predicate NULL (not true), so they were left out and a second open row with the same
 * key could be inserted. The exclusion now compares NULL-safely.
 */
export const pgMigration007OpenKeyIndexNullSafe = `
DROP INDEX ux_tasks_open_key;
CREATE UNIQUE INDEX ux_tasks_open_key ON tasks (task_key)
  WHERE task_key IS NOT NULL AND status NOT IN ('Completed', 'Failed', 'Cancelled')
    AND NOT (is_recurring = 1 AND occurrence_mode IS NOT DISTINCT FROM 'Durable' AND parent_task_id IS NULL);
`;
