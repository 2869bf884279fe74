/**
 * Migration 10: each search row carries its task's status.
 *
 * An argument search combined with a status filter ("ACME-42, Failed") used to look up every
 * match's task row for its status: a few thousand random reads of a large file. With the status
 * beside the group columns, the search rows alone count, sort and page such a list and only the
 * page's task rows are read.
 *
 * The copy is kept by a trigger on the task table rather than by the writers: a status changes in
 * many places (claims, run ends, retries, cancellations, management actions, recovery, schedules),
 * and a trigger cannot be forgotten by any of them. It runs one indexed single-row UPDATE, only
 * when the status really changes. A new search row reads its task's status when it is written,
 * later in the same transaction as the task row.
 */
const searchRowStatusFillSql = `
UPDATE task_search_rows SET status = (SELECT t.status FROM tasks t WHERE t.id = task_search_rows.task_id);
`;

export const migration010SearchRowStatus = `
ALTER TABLE task_search_rows ADD COLUMN status TEXT NOT NULL DEFAULT '';
${searchRowStatusFillSql}
CREATE TRIGGER tr_tasks_search_row_status AFTER UPDATE OF status ON tasks
  WHEN NEW.status IS NOT OLD.status
BEGIN
  UPDATE task_search_rows SET status = NEW.status WHERE task_id = NEW.id;
END;
`;
