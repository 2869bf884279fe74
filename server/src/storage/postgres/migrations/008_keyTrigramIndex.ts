/**
 * PostgreSQL migration 8: a trigram index of task keys (pg_trgm, GIN), so that a search term
 * finds the keys that contain it (ILIKE '%term%') through the index instead of reading every key.
 * The extension is installed once per database, in `public` (so that dropping one store's schema
 * never takes it away from another's); the index names its operator class by the schema the
 * extension actually lives in, since a store's search_path holds only its own schema.
 * Stores of other schemas may be migrating in the same database at the same moment, and the
 * migration lock is per schema: a transaction lock for the whole database makes them install the
 * extension one after the other (the later one then finds it), instead of the later failing on
 * the extension's unique name.
 */
export const pgMigration008KeyTrigramIndex = `
SELECT pg_advisory_xact_lock(hashtext('svc_monitor.extension:pg_trgm'));
CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public;
DO $$
DECLARE
  ext_schema text;
BEGIN
  SELECT n.nspname INTO ext_schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm';
  EXECUTE format('CREATE INDEX ix_tasks_key_trgm ON tasks USING gin (task_key %I.gin_trgm_ops) WHERE task_key IS NOT NULL', ext_schema);
END $$;
`;
