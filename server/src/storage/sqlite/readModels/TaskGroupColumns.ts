/** SQL select list of the columns that place a task row in the read models' groups (see TaskGroup). */
export const TASK_GROUP_COLUMNS = `queue, type, is_recurring, parent_task_id IS NOT NULL AS is_occurrence, created_at`;
