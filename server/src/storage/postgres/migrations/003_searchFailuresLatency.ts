/**
 * PostgreSQL migration 3 (SQLite's migration 6): argument search, failure groups, queue
 * throughput, and who changed a status.
 *
 * - Argument search: a GIN index over `svc_request_vector(request)` (the runs of letters and digits
 *   of the request JSON, keys and values alike, lower-cased); each search term is a phrase, all required.
 * - `svc_failure_fingerprint(text)`: the fingerprint of an error text, the same masking as the
 *   application's failureFingerprint (first non-empty line; quoted values, GUIDs, long hex ids
 *   and numbers masked), so failure groups are one group whichever instance failed the run.
 * - Failure groups per end hour/day, type and fingerprint, as rolled-up + delta tables (no hot row).
 * - `stat_queue_finished_10s_delta`: finished runs per queue in 10-second buckets, append-only;
 *   the roll-up drops buckets older than two minutes.
 * - `status_audit.changed_by`.
 */
const failureTables = (name: string) => `
CREATE TABLE ${name} (
  bucket          BIGINT NOT NULL,
  type            TEXT COLLATE "C" NOT NULL,
  fingerprint     TEXT COLLATE "C" NOT NULL,
  n               BIGINT NOT NULL,
  first_seen      BIGINT NOT NULL,
  last_seen       BIGINT NOT NULL,
  sample_task_id  TEXT NOT NULL,
  PRIMARY KEY (bucket, type, fingerprint)
);
CREATE TABLE ${name}_delta (
  bucket          BIGINT NOT NULL,
  type            TEXT COLLATE "C" NOT NULL,
  fingerprint     TEXT COLLATE "C" NOT NULL,
  n               BIGINT NOT NULL,
  first_seen      BIGINT NOT NULL,
  last_seen       BIGINT NOT NULL,
  sample_task_id  TEXT NOT NULL
);
CREATE VIEW ${name}_v AS
  SELECT bucket, type, fingerprint, n, first_seen, last_seen, sample_task_id FROM ${name}
  UNION ALL SELECT bucket, type, fingerprint, n, first_seen, last_seen, sample_task_id FROM ${name}_delta;`;

/** Failed runs of a set of rows (ended, type, fingerprint, task id) grouped into buckets of `bucketMs`. */
const failureDeltas = (table: string, bucketMs: number, src: string) => `
  INSERT INTO ${table}_delta (bucket, type, fingerprint, n, first_seen, last_seen, sample_task_id)
    SELECT ended / ${bucketMs}, type, fingerprint, COUNT(*), MIN(ended), MAX(ended),
           (array_agg(task_id ORDER BY ended DESC, task_id DESC))[1]
      FROM ${src} GROUP BY 1, 2, 3;`;

const FAILED_RUNS = `(SELECT n.last_execution_at AS ended, n.type, svc_failure_fingerprint(n.exception) AS fingerprint, n.id AS task_id
   FROM old_rows o JOIN new_rows n ON n.id = o.id
  WHERE n.run_count > o.run_count AND n.last_outcome = 'Failed' AND n.last_execution_at IS NOT NULL) AS failed_runs`;

// The failure groups' roll-up, the throughput's pruning and the rebuild are generated from the
// counters' description: readModels/readModelRollup.ts and readModels/rebuildReadModels.ts.

/** The statements of the finished-runs trigger on tasks (failure groups, queue throughput). */
export const svcTasksRunsFinishedBody = `
${failureDeltas('failure_groups_hour', 3600000, FAILED_RUNS)}
${failureDeltas('failure_groups_day', 86400000, FAILED_RUNS)}
  INSERT INTO stat_queue_finished_10s_delta (bucket, queue, n)
    SELECT n.last_execution_at / 10000, n.queue, COUNT(*) FROM old_rows o JOIN new_rows n ON n.id = o.id
     WHERE n.run_count > o.run_count AND n.last_execution_at IS NOT NULL GROUP BY 1, 2;`;

export const pgMigration003SearchFailuresLatency = `
-- Words are the runs of letters and digits (as the SQLite full-text tokenizer splits them), lower-cased.
CREATE FUNCTION svc_search_words(t text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $fn$ SELECT regexp_replace(t, '[^[:alnum:]]+', ' ', 'g') $fn$;
CREATE FUNCTION svc_request_vector(t text) RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $fn$ SELECT to_tsvector('simple'::regconfig, regexp_replace(t, '[^[:alnum:]]+', ' ', 'g')) $fn$;
CREATE INDEX ix_tasks_request_search ON tasks USING gin (svc_request_vector(request));

CREATE FUNCTION svc_failure_fingerprint(t text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $fn$
DECLARE
  line text;
  masked text;
BEGIN
  IF t IS NULL THEN RETURN '(no error text)'; END IF;
  SELECT regexp_replace(l, '^\\s+|\\s+$', '', 'g') INTO line
    FROM regexp_split_to_table(t, E'\\r?\\n') WITH ORDINALITY AS s(l, i)
   WHERE l ~ '\\S' ORDER BY i LIMIT 1;
  IF line IS NULL OR line = '' THEN RETURN '(no error text)'; END IF;
  masked := regexp_replace(line, '"(?:[^"\\\\]|\\\\.)*"', '"…"', 'g');
  masked := regexp_replace(masked, '''(?:[^''\\\\]|\\\\.)*''', '''…''', 'g');
  masked := regexp_replace(masked, '\`[^\`]*\`', '\`…\`', 'g');
  masked := regexp_replace(masked, '(^|[^A-Za-z0-9_])[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?![A-Za-z0-9_])', '\\1#', 'g');
  -- Whole words made of hex digits with at least one digit: ids of 6+ hex digits and plain numbers.
  SELECT string_agg(
           CASE WHEN w ~* '^(0x)?[0-9a-f]*[0-9][0-9a-f]*$' AND (w ~* '^(0x)?[0-9a-f]{6,}$' OR w ~ '^[0-9]+$') THEN '#' ELSE w END,
           '' ORDER BY i)
    INTO masked
    FROM regexp_matches(masked, '[A-Za-z0-9_]+|[^A-Za-z0-9_]+', 'g') WITH ORDINALITY AS m(parts, i), LATERAL (SELECT parts[1] AS w) AS x;
  masked := regexp_replace(masked, '[0-9]+(?:[.,:][0-9]+)*', '#', 'g');
  masked := regexp_replace(masked, '\\s+', ' ', 'g');
  IF char_length(masked) > 240 THEN masked := substr(masked, 1, 239) || '…'; END IF;
  RETURN masked;
END $fn$;

${failureTables('failure_groups_hour')}
${failureTables('failure_groups_day')}

CREATE TABLE stat_queue_finished_10s_delta (
  bucket  BIGINT NOT NULL,
  queue   TEXT COLLATE "C" NOT NULL,
  n       BIGINT NOT NULL
);
CREATE INDEX ix_stat_queue_finished_10s_delta ON stat_queue_finished_10s_delta (bucket);

CREATE FUNCTION svc_tasks_runs_finished() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
BEGIN
${svcTasksRunsFinishedBody}
  RETURN NULL;
END $fn$;
CREATE TRIGGER tr_tasks_runs_finished AFTER UPDATE ON tasks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION svc_tasks_runs_finished();

ALTER TABLE status_audit ADD COLUMN changed_by TEXT;
`;
