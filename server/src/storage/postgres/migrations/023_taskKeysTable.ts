/**
 * PostgreSQL migration 23: task keys in their own narrow table, `task_keys`, with the trigram index.
 *
 * A key-substring search (ILIKE '%term%') reads its candidates from a trigram index and checks
 * each one against its key, which the index does not hold. On `tasks` that check read each
 * candidate's task row, one heap page of the widest table per key: at 10 M tasks the term
 * `order-12` (~5,000 keys) read ~20,000 pages. `task_keys` holds only the tasks that have a key,
 * one short row each (`seq`, `created_at`, `task_key`), so the keys a term finds lie on a few
 * pages, and a search term that can only be a key is counted and paged there by creation time;
 * only the page's task rows are read.
 *
 * Written by triggers on `tasks`, as `task_search` is: a task's row when it is inserted with a
 * key, deleted with the task, rewritten if its key or creation time changes (none of this code's
 * writes changes either). The trigram index on `tasks` goes: every status write of a keyed task
 * (a new row version, since status is indexed) added the key's trigrams to it again.
 */
export const pgMigration023TaskKeysTable = `
CREATE TABLE task_keys (
  seq         BIGINT PRIMARY KEY,
  created_at  BIGINT NOT NULL,
  task_key    TEXT COLLATE "C" NOT NULL
);
INSERT INTO task_keys (seq, created_at, task_key) SELECT seq, created_at, task_key FROM tasks WHERE task_key IS NOT NULL;
DO $$
DECLARE
  ext_schema text;
BEGIN
  SELECT n.nspname INTO ext_schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm';
  EXECUTE format('CREATE INDEX ix_task_keys_trgm ON task_keys USING gin (task_key %I.gin_trgm_ops)', ext_schema);
END $$;
DROP INDEX ix_tasks_key_trgm;

CREATE FUNCTION svc_task_keys_inserted() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
BEGIN
  INSERT INTO task_keys (seq, created_at, task_key) SELECT seq, created_at, task_key FROM new_rows WHERE task_key IS NOT NULL;
  RETURN NULL;
END $fn$;
CREATE FUNCTION svc_task_keys_deleted() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
BEGIN
  DELETE FROM task_keys k USING old_rows o WHERE k.seq = o.seq AND o.task_key IS NOT NULL;
  RETURN NULL;
END $fn$;
CREATE FUNCTION svc_task_keys_changed() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
BEGIN
  DELETE FROM task_keys WHERE seq = OLD.seq;
  IF NEW.task_key IS NOT NULL THEN
    INSERT INTO task_keys (seq, created_at, task_key) VALUES (NEW.seq, NEW.created_at, NEW.task_key);
  END IF;
  RETURN NULL;
END $fn$;
CREATE TRIGGER tr_task_keys_inserted AFTER INSERT ON tasks REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION svc_task_keys_inserted();
CREATE TRIGGER tr_task_keys_deleted AFTER DELETE ON tasks REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION svc_task_keys_deleted();
-- Fires only for UPDATE statements that set the key or the creation time (the engine's status writes never do).
CREATE TRIGGER tr_task_keys_changed AFTER UPDATE OF task_key, created_at ON tasks
  FOR EACH ROW WHEN (OLD.task_key IS DISTINCT FROM NEW.task_key OR OLD.created_at IS DISTINCT FROM NEW.created_at)
  EXECUTE FUNCTION svc_task_keys_changed();
ANALYZE task_keys;
`;
