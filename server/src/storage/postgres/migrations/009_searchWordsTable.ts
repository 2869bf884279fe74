/**
 * PostgreSQL migration 9: indexes the engine's hot path no longer maintains.
 *
 * Every status change is an UPDATE that cannot be HOT (status is indexed), so each one adds an
 * entry to every full index of `tasks`: a claim and a run end are two such updates per task. The
 * GIN index of the argument search was one of them, and the costliest: each new row version
 * recomputed the request's words and added them to the index. The words now live in their own
 * table, `task_search` (one row per task, keyed by `seq`), written when a task is inserted,
 * rewritten only when its request changes, deleted with the task, all by triggers on `tasks`;
 * the search reads `task_search` and joins back by `seq`.
 *
 * The (status, scheduled_at) index served only the due-work reads (Pending rows); it becomes a
 * partial index over Pending rows, which claims and run ends no longer touch.
 */
export const pgMigration009SearchWordsTable = `
CREATE TABLE task_search (
  seq    BIGINT PRIMARY KEY,
  words  TSVECTOR NOT NULL
);
INSERT INTO task_search (seq, words) SELECT seq, svc_request_vector(request) FROM tasks;
CREATE INDEX ix_task_search_words ON task_search USING gin (words);
DROP INDEX ix_tasks_request_search;

CREATE FUNCTION svc_task_search_inserted() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
BEGIN
  INSERT INTO task_search (seq, words) SELECT seq, svc_request_vector(request) FROM new_rows;
  RETURN NULL;
END $fn$;
CREATE FUNCTION svc_task_search_deleted() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
BEGIN
  DELETE FROM task_search s USING old_rows o WHERE s.seq = o.seq;
  RETURN NULL;
END $fn$;
CREATE FUNCTION svc_task_search_request_changed() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
BEGIN
  UPDATE task_search SET words = svc_request_vector(NEW.request) WHERE seq = NEW.seq;
  RETURN NULL;
END $fn$;
CREATE TRIGGER tr_task_search_inserted AFTER INSERT ON tasks REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION svc_task_search_inserted();
CREATE TRIGGER tr_task_search_deleted AFTER DELETE ON tasks REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION svc_task_search_deleted();
-- Fires only for UPDATE statements that set the request column (the engine's status writes never do).
CREATE TRIGGER tr_task_search_request_changed AFTER UPDATE OF request ON tasks
  FOR EACH ROW WHEN (OLD.request IS DISTINCT FROM NEW.request) EXECUTE FUNCTION svc_task_search_request_changed();

DROP INDEX ix_tasks_due;
CREATE INDEX ix_tasks_pending_due ON tasks (scheduled_at) WHERE status = 'Pending';
`;
