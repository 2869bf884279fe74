/**
 * PostgreSQL migration 21: each row of `task_search` carries its task's creation time.
 *
 * An argument search alone, listed by creation time (the default list), then counts and pages its
 * matches in `task_search` itself (the rows the full-text index found, read anyway for the phrase
 * check) and reads only the page's task rows; before, each match was looked up once more in
 * `ux_tasks_seq` for its sort key: at 10 M tasks, ~2,000 random index leaves per customer value,
 * most of the search's page reads. A task's creation time never changes after its insert, so the
 * engine's status writes still leave `task_search` alone; the insert trigger copies the column, and
 * the request trigger also follows a change of it (none of this code's writes makes one).
 *
 * The table is rebuilt rather than altered: an UPDATE of every row would add each row's words to
 * the full-text index again (a new row version), one by one; a new table builds the index once.
 */
export const pgMigration021SearchWordsCarryCreatedAt = `
CREATE TABLE task_search_v21 (
  seq         BIGINT PRIMARY KEY,
  created_at  BIGINT NOT NULL,
  words       TSVECTOR NOT NULL
);
INSERT INTO task_search_v21 (seq, created_at, words) SELECT s.seq, t.created_at, s.words FROM task_search s JOIN tasks t ON t.seq = s.seq;
DROP TABLE task_search;
ALTER TABLE task_search_v21 RENAME TO task_search;
ALTER INDEX task_search_v21_pkey RENAME TO task_search_pkey;
CREATE INDEX ix_task_search_words ON task_search USING gin (words);

CREATE OR REPLACE FUNCTION svc_task_search_inserted() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
BEGIN
  INSERT INTO task_search (seq, created_at, words) SELECT seq, created_at, svc_request_vector(request) FROM new_rows;
  RETURN NULL;
END $fn$;
CREATE OR REPLACE FUNCTION svc_task_search_request_changed() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
BEGIN
  UPDATE task_search SET created_at = NEW.created_at, words = svc_request_vector(NEW.request) WHERE seq = NEW.seq;
  RETURN NULL;
END $fn$;
DROP TRIGGER tr_task_search_request_changed ON tasks;
CREATE TRIGGER tr_task_search_request_changed AFTER UPDATE OF request, created_at ON tasks
  FOR EACH ROW WHEN (OLD.request IS DISTINCT FROM NEW.request OR OLD.created_at IS DISTINCT FROM NEW.created_at)
  EXECUTE FUNCTION svc_task_search_request_changed();
ANALYZE task_search;
`;
