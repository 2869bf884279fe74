/**
 * PostgreSQL migration 2: the read models, without a hot row.
 *
 * Every read model is a pair: a rolled-up table (`stat_x`) written only by the roll-up, and an
 * append-only delta table (`stat_x_delta`) written by statement-level triggers on `tasks` in the
 * same transaction as the change (one row per group touched by the statement, never an update of
 * a shared row). Readers go through the view `stat_x_v` (rolled-up rows UNION ALL deltas) and
 * always aggregate with SUM/MIN/MAX, so answers stay exact whatever has been rolled up; the
 * roll-up (one process at a time, under an advisory lock) folds deltas into the rolled-up table
 * to keep the views O(groups). N engine instances therefore never queue on one counter row.
 */

/**
 * The INSERT that adds the finished runs of `source` (task rows as their run ended) to the delta
 * table of the run buckets `table`, one row per bucket of `bucketMs`, type and queue. This
 * migration's trigger bodies were written with this text; the live ones are generated from the
 * counters' description (readModels/readModelTriggerFunctions.ts, installed by migration 13).
 */
const runBucketDeltaInsert = (table: string, bucketMs: number, source: string) => `INSERT INTO ${table}_delta (bucket, type, queue, completed, failed, dur_sum, dur_count, dur_min, dur_max)
    SELECT last_execution_at / ${bucketMs}, type, queue,
           COUNT(*) FILTER (WHERE last_outcome = 'Completed'), COUNT(*) FILTER (WHERE last_outcome = 'Failed'),
           COALESCE(SUM(execution_time_ms) FILTER (WHERE last_outcome = 'Completed'), 0),
           COUNT(execution_time_ms) FILTER (WHERE last_outcome = 'Completed'),
           MIN(execution_time_ms) FILTER (WHERE last_outcome = 'Completed'),
           MAX(execution_time_ms) FILTER (WHERE last_outcome = 'Completed')
      FROM ${source} GROUP BY 1, 2, 3`;

const runsTable = (name: string) => `
CREATE TABLE ${name} (
  bucket     BIGINT NOT NULL,
  type       TEXT COLLATE "C" NOT NULL,
  queue      TEXT COLLATE "C" NOT NULL,
  completed  BIGINT NOT NULL,
  failed     BIGINT NOT NULL,
  dur_sum    DOUBLE PRECISION NOT NULL,
  dur_count  BIGINT NOT NULL,
  dur_min    DOUBLE PRECISION,
  dur_max    DOUBLE PRECISION,
  PRIMARY KEY (bucket, type, queue)
);
CREATE TABLE ${name}_delta (
  bucket     BIGINT NOT NULL,
  type       TEXT COLLATE "C" NOT NULL,
  queue      TEXT COLLATE "C" NOT NULL,
  completed  BIGINT NOT NULL,
  failed     BIGINT NOT NULL,
  dur_sum    DOUBLE PRECISION NOT NULL,
  dur_count  BIGINT NOT NULL,
  dur_min    DOUBLE PRECISION,
  dur_max    DOUBLE PRECISION
);
CREATE VIEW ${name}_v AS
  SELECT bucket, type, queue, completed, failed, dur_sum, dur_count, dur_min, dur_max FROM ${name}
  UNION ALL SELECT bucket, type, queue, completed, failed, dur_sum, dur_count, dur_min, dur_max FROM ${name}_delta;`;

const countTable = (name: string, key: string) => `
CREATE TABLE ${name} (
  ${key}  BIGINT NOT NULL,
  type    TEXT COLLATE "C" NOT NULL,
  status  TEXT COLLATE "C" NOT NULL,
  n       BIGINT NOT NULL,
  PRIMARY KEY (${key}, type, status)
);
CREATE TABLE ${name}_delta (
  ${key}  BIGINT NOT NULL,
  type    TEXT COLLATE "C" NOT NULL,
  status  TEXT COLLATE "C" NOT NULL,
  n       BIGINT NOT NULL
);
CREATE VIEW ${name}_v AS
  SELECT ${key}, type, status, n FROM ${name} UNION ALL SELECT ${key}, type, status, n FROM ${name}_delta;`;

/** Task-counter deltas of a set of rows (`src`: a transition table or a query), signed by `sign`. */
const taskDeltas = (src: string, sign: string) => `
  INSERT INTO stat_tasks_delta (queue, type, status, is_recurring, is_occurrence, n)
    SELECT queue, type, status, is_recurring, (parent_task_id IS NOT NULL)::int, ${sign} COUNT(*) FROM ${src} GROUP BY 1, 2, 3, 4, 5;
  INSERT INTO stat_created_hour_delta (hour, type, status, n)
    SELECT created_at / 3600000, type, status, ${sign} COUNT(*) FROM ${src} GROUP BY 1, 2, 3;
  INSERT INTO stat_created_day_delta (day, type, status, n)
    SELECT created_at / 86400000, type, status, ${sign} COUNT(*) FROM ${src} GROUP BY 1, 2, 3;`;

/** Rows whose counter dimensions changed in an UPDATE statement (old and new side by side). */
const MOVED = `(SELECT o.* FROM old_rows o JOIN new_rows n ON n.id = o.id
   WHERE o.status IS DISTINCT FROM n.status OR o.queue IS DISTINCT FROM n.queue OR o.type IS DISTINCT FROM n.type
      OR o.is_recurring IS DISTINCT FROM n.is_recurring OR o.parent_task_id IS DISTINCT FROM n.parent_task_id
      OR o.created_at IS DISTINCT FROM n.created_at) AS moved_old`;
const MOVED_NEW = `(SELECT n.* FROM old_rows o JOIN new_rows n ON n.id = o.id
   WHERE o.status IS DISTINCT FROM n.status OR o.queue IS DISTINCT FROM n.queue OR o.type IS DISTINCT FROM n.type
      OR o.is_recurring IS DISTINCT FROM n.is_recurring OR o.parent_task_id IS DISTINCT FROM n.parent_task_id
      OR o.created_at IS DISTINCT FROM n.created_at) AS moved_new`;

/** One finished run per row whose run_count went up (the end of the run is last_execution_at). */
const RUNS = `(SELECT n.* FROM old_rows o JOIN new_rows n ON n.id = o.id
   WHERE n.run_count > o.run_count AND n.last_execution_at IS NOT NULL) AS runs`;

const runDeltas = (table: string, bucketMs: number) => `
  ${runBucketDeltaInsert(table, bucketMs, RUNS)};`;

/** New (type, handler) pairs of a set of rows (no counter: the set substring search resolves against). */
export const TYPE_HANDLERS = (src: string) => `
  INSERT INTO monitor_type_handlers (type, handler)
    SELECT DISTINCT s.type, s.handler FROM ${src} s
     WHERE NOT EXISTS (SELECT 1 FROM monitor_type_handlers m WHERE m.type = s.type AND m.handler = s.handler)
     ORDER BY 1, 2
  ON CONFLICT DO NOTHING;`;

/** The statements of the UPDATE trigger on tasks (counters of moved rows, run buckets, new type/handler pairs). */
export const svcTasksUpdatedBody = `
${taskDeltas(MOVED, '-')}
${taskDeltas(MOVED_NEW, '')}
${runDeltas('stat_runs_hour', 3600000)}
${runDeltas('stat_runs_day', 86400000)}
${TYPE_HANDLERS(`(SELECT n.type, n.handler FROM old_rows o JOIN new_rows n ON n.id = o.id
   WHERE o.type IS DISTINCT FROM n.type OR o.handler IS DISTINCT FROM n.handler)`)}`;

export const pgMigration002ReadModels = `
CREATE TABLE stat_tasks (
  queue         TEXT COLLATE "C" NOT NULL,
  type          TEXT COLLATE "C" NOT NULL,
  status        TEXT COLLATE "C" NOT NULL,
  is_recurring  INTEGER NOT NULL,
  is_occurrence INTEGER NOT NULL,
  n             BIGINT NOT NULL,
  PRIMARY KEY (queue, type, status, is_recurring, is_occurrence)
);
CREATE TABLE stat_tasks_delta (
  queue         TEXT COLLATE "C" NOT NULL,
  type          TEXT COLLATE "C" NOT NULL,
  status        TEXT COLLATE "C" NOT NULL,
  is_recurring  INTEGER NOT NULL,
  is_occurrence INTEGER NOT NULL,
  n             BIGINT NOT NULL
);
CREATE VIEW stat_tasks_v AS
  SELECT queue, type, status, is_recurring, is_occurrence, n FROM stat_tasks
  UNION ALL SELECT queue, type, status, is_recurring, is_occurrence, n FROM stat_tasks_delta;
${countTable('stat_created_hour', 'hour')}
${countTable('stat_created_day', 'day')}
${runsTable('stat_runs_hour')}
${runsTable('stat_runs_day')}

-- The small set of distinct (type, handler) pairs against which substrings are resolved.
CREATE TABLE monitor_type_handlers (
  type     TEXT COLLATE "C" NOT NULL,
  handler  TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (type, handler)
);

CREATE FUNCTION svc_tasks_inserted() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
BEGIN
${taskDeltas('new_rows', '')}
${TYPE_HANDLERS('new_rows')}
  RETURN NULL;
END $fn$;

CREATE FUNCTION svc_tasks_deleted() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
BEGIN
${taskDeltas('old_rows', '-')}
  RETURN NULL;
END $fn$;

CREATE FUNCTION svc_tasks_updated() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
BEGIN
${svcTasksUpdatedBody}
  RETURN NULL;
END $fn$;

CREATE TRIGGER tr_tasks_inserted AFTER INSERT ON tasks REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION svc_tasks_inserted();
CREATE TRIGGER tr_tasks_deleted AFTER DELETE ON tasks REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION svc_tasks_deleted();
CREATE TRIGGER tr_tasks_updated AFTER UPDATE ON tasks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION svc_tasks_updated();
`;

// The roll-up of the delta tables and the rebuild are generated from the counters' description:
// readModels/readModelRollup.ts and readModels/rebuildReadModels.ts.
