/**
 * Migration 6: argument search, failure groups, queue latency, and who changed a status.
 *
 * - `task_search_rows` + `task_request_fts`: a full-text index (FTS5, contentless with deletes)
 *   over each task's request JSON, keys and values alike. The FTS rowid is the stable integer
 *   key of `task_search_rows` (the task table has no integer primary key, so its rowid may be
 *   renumbered by VACUUM). Triggers keep both in the same transaction as the task row.
 * - `failure_groups_hour` / `failure_groups_day`: failed runs per end hour/day, task type and
 *   exception fingerprint (`svc_failure_fingerprint`, registered on every connection that
 *   writes), with first/last seen and a sample task: the failure-groups endpoint reads
 *   O(groups), never the task table.
 * - `stat_queue_finished_10s`: finished runs per queue in 10-second buckets (the last minute's
 *   rate of a queue); buckets older than two minutes are dropped as new ones arrive.
 * - `status_audit.changed_by`: who made a transition when a person did (retry, bulk actions).
 */
const failureBucket = (table: string, keyExpr: string) => `
  INSERT INTO ${table} (bucket, type, fingerprint, n, first_seen, last_seen, sample_task_id)
  VALUES (${keyExpr}, NEW.type, svc_failure_fingerprint(NEW.exception), 1, NEW.last_execution_at, NEW.last_execution_at, NEW.id)
  ON CONFLICT (bucket, type, fingerprint) DO UPDATE SET
    n = n + 1,
    first_seen = MIN(first_seen, excluded.first_seen),
    last_seen = MAX(last_seen, excluded.last_seen),
    sample_task_id = CASE WHEN excluded.last_seen >= last_seen THEN excluded.sample_task_id ELSE sample_task_id END;`;

const failureTable = (name: string) => `
CREATE TABLE ${name} (
  bucket          INTEGER NOT NULL,
  type            TEXT NOT NULL,
  fingerprint     TEXT NOT NULL,
  n               INTEGER NOT NULL,
  first_seen      INTEGER NOT NULL,
  last_seen       INTEGER NOT NULL,
  sample_task_id  TEXT NOT NULL,
  PRIMARY KEY (bucket, type, fingerprint)
) WITHOUT ROWID;`;

/** Recomputes the failure groups from the kept history (last run of one-shots, audited runs of recurring rows). */
export const rebuildFailureGroupsSql = `
DELETE FROM failure_groups_hour; DELETE FROM failure_groups_day;
CREATE TEMP TABLE IF NOT EXISTS failed_runs_rebuild (ended INTEGER, type TEXT, fingerprint TEXT, task_id TEXT);
DELETE FROM failed_runs_rebuild;
INSERT INTO failed_runs_rebuild
  SELECT last_execution_at, type, svc_failure_fingerprint(exception), id FROM tasks
   WHERE is_recurring = 0 AND run_count > 0 AND last_outcome = 'Failed' AND last_execution_at IS NOT NULL
  UNION ALL
  SELECT r.executed_at, t.type, svc_failure_fingerprint(r.exception), t.id
    FROM runs_audit r JOIN tasks t ON t.id = r.task_id WHERE t.is_recurring = 1 AND r.status = 'Failed';
INSERT INTO failure_groups_hour (bucket, type, fingerprint, n, first_seen, last_seen, sample_task_id)
  SELECT ended / 3600000, type, fingerprint, COUNT(*), MIN(ended), MAX(ended), task_id FROM failed_runs_rebuild GROUP BY 1, 2, 3;
INSERT INTO failure_groups_day (bucket, type, fingerprint, n, first_seen, last_seen, sample_task_id)
  SELECT ended / 86400000, type, fingerprint, COUNT(*), MIN(ended), MAX(ended), task_id FROM failed_runs_rebuild GROUP BY 1, 2, 3;
DROP TABLE failed_runs_rebuild;
`;

/** Rebuilds the argument index from the task table in one pass (faster than row by row for a bulk load). */
export const rebuildRequestSearchSql = `
DELETE FROM task_request_fts; DELETE FROM task_search_rows;
INSERT INTO task_search_rows (task_id) SELECT id FROM tasks ORDER BY rowid;
INSERT INTO task_request_fts (rowid, request)
  SELECT s.id, t.request FROM task_search_rows s JOIN tasks t ON t.id = s.task_id;
`;

export const migration006SearchFailuresLatency = `
CREATE TABLE task_search_rows (
  id       INTEGER PRIMARY KEY,
  task_id  TEXT NOT NULL UNIQUE
);
CREATE VIRTUAL TABLE task_request_fts USING fts5(request, content='', contentless_delete=1);
${rebuildRequestSearchSql}

CREATE TRIGGER tr_tasks_search_insert AFTER INSERT ON tasks BEGIN
  INSERT INTO task_search_rows (task_id) VALUES (NEW.id);
  INSERT INTO task_request_fts (rowid, request) VALUES (last_insert_rowid(), NEW.request);
END;
CREATE TRIGGER tr_tasks_search_delete AFTER DELETE ON tasks BEGIN
  DELETE FROM task_request_fts WHERE rowid = (SELECT id FROM task_search_rows WHERE task_id = OLD.id);
  DELETE FROM task_search_rows WHERE task_id = OLD.id;
END;
CREATE TRIGGER tr_tasks_search_update AFTER UPDATE OF request ON tasks
WHEN OLD.request IS NOT NEW.request BEGIN
  UPDATE task_request_fts SET request = NEW.request WHERE rowid = (SELECT id FROM task_search_rows WHERE task_id = NEW.id);
END;

${failureTable('failure_groups_hour')}
${failureTable('failure_groups_day')}
CREATE TRIGGER tr_tasks_failure_groups AFTER UPDATE OF run_count ON tasks
WHEN NEW.run_count > OLD.run_count AND NEW.last_outcome = 'Failed' AND NEW.last_execution_at IS NOT NULL
BEGIN
${failureBucket('failure_groups_hour', 'NEW.last_execution_at / 3600000')}
${failureBucket('failure_groups_day', 'NEW.last_execution_at / 86400000')}
END;
${rebuildFailureGroupsSql}

CREATE TABLE stat_queue_finished_10s (
  bucket  INTEGER NOT NULL,
  queue   TEXT NOT NULL,
  n       INTEGER NOT NULL,
  PRIMARY KEY (bucket, queue)
) WITHOUT ROWID;
CREATE TRIGGER tr_tasks_queue_throughput AFTER UPDATE OF run_count ON tasks
WHEN NEW.run_count > OLD.run_count AND NEW.last_execution_at IS NOT NULL
BEGIN
  INSERT INTO stat_queue_finished_10s (bucket, queue, n) VALUES (NEW.last_execution_at / 10000, NEW.queue, 1)
  ON CONFLICT (bucket, queue) DO UPDATE SET n = n + 1;
  DELETE FROM stat_queue_finished_10s WHERE bucket < NEW.last_execution_at / 10000 - 12;
END;

ALTER TABLE status_audit ADD COLUMN changed_by TEXT;
`;
