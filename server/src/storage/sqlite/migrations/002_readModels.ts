/**
 * Migration 2: read models for the dashboard (counts and run buckets), kept exact by
 * triggers in the same transaction as every insert, status change and finished run, whoever
 * the writer is (engine, schedule materializer, management requeue). Requests then read
 * O(groups), never the task table.
 *
 * - stat_tasks: current count per (queue, type, status, recurring, occurrence).
 * - stat_created_hour / stat_created_day: count per creation hour/day, type and CURRENT status
 *   (range-filtered status distributions: dashboard ranges apply to createdAtUtc).
 * - stat_runs_hour / stat_runs_day: finished runs per end hour/day, type and queue, with
 *   completed/failed counts and the sum/count/min/max of measured durations of completed runs.
 */
import { RUN_BUCKET_MERGE } from '../readModels/runBucketMerge.js';

const statTasksDelta = (row: 'NEW' | 'OLD', delta: '+ 1' | '- 1') => `
  INSERT INTO stat_tasks (queue, type, status, is_recurring, is_occurrence, n)
  VALUES (${row}.queue, ${row}.type, ${row}.status, ${row}.is_recurring, ${row}.parent_task_id IS NOT NULL, 0 ${delta})
  ON CONFLICT (queue, type, status, is_recurring, is_occurrence) DO UPDATE SET n = n ${delta};
  INSERT INTO stat_created_hour (hour, type, status, n)
  VALUES (${row}.created_at / 3600000, ${row}.type, ${row}.status, 0 ${delta})
  ON CONFLICT (hour, type, status) DO UPDATE SET n = n ${delta};
  INSERT INTO stat_created_day (day, type, status, n)
  VALUES (${row}.created_at / 86400000, ${row}.type, ${row}.status, 0 ${delta})
  ON CONFLICT (day, type, status) DO UPDATE SET n = n ${delta};`;

const runsBucket = (table: string, keyExpr: string) => `
  INSERT INTO ${table} (bucket, type, queue, completed, failed, dur_sum, dur_count, dur_min, dur_max)
  VALUES (${keyExpr}, NEW.type, NEW.queue,
          NEW.last_outcome = 'Completed', NEW.last_outcome = 'Failed',
          CASE WHEN NEW.last_outcome = 'Completed' AND NEW.execution_time_ms IS NOT NULL THEN NEW.execution_time_ms ELSE 0 END,
          NEW.last_outcome = 'Completed' AND NEW.execution_time_ms IS NOT NULL,
          CASE WHEN NEW.last_outcome = 'Completed' THEN NEW.execution_time_ms END,
          CASE WHEN NEW.last_outcome = 'Completed' THEN NEW.execution_time_ms END)
  ${RUN_BUCKET_MERGE};`;

const runsTable = (name: string) => `
CREATE TABLE ${name} (
  bucket     INTEGER NOT NULL,
  type       TEXT NOT NULL,
  queue      TEXT NOT NULL,
  completed  INTEGER NOT NULL,
  failed     INTEGER NOT NULL,
  dur_sum    REAL NOT NULL,
  dur_count  INTEGER NOT NULL,
  dur_min    REAL,
  dur_max    REAL,
  PRIMARY KEY (bucket, type, queue)
) WITHOUT ROWID;`;

export const migration002ReadModels = `
CREATE TABLE stat_tasks (
  queue         TEXT NOT NULL,
  type          TEXT NOT NULL,
  status        TEXT NOT NULL,
  is_recurring  INTEGER NOT NULL,
  is_occurrence INTEGER NOT NULL,
  n             INTEGER NOT NULL,
  PRIMARY KEY (queue, type, status, is_recurring, is_occurrence)
) WITHOUT ROWID;
CREATE TABLE stat_created_hour (
  hour    INTEGER NOT NULL,
  type    TEXT NOT NULL,
  status  TEXT NOT NULL,
  n       INTEGER NOT NULL,
  PRIMARY KEY (hour, type, status)
) WITHOUT ROWID;
CREATE TABLE stat_created_day (
  day     INTEGER NOT NULL,
  type    TEXT NOT NULL,
  status  TEXT NOT NULL,
  n       INTEGER NOT NULL,
  PRIMARY KEY (day, type, status)
) WITHOUT ROWID;
${runsTable('stat_runs_hour')}
${runsTable('stat_runs_day')}

CREATE TRIGGER tr_tasks_insert_stats AFTER INSERT ON tasks BEGIN
${statTasksDelta('NEW', '+ 1')}
END;

CREATE TRIGGER tr_tasks_delete_stats AFTER DELETE ON tasks BEGIN
${statTasksDelta('OLD', '- 1')}
END;

CREATE TRIGGER tr_tasks_move_stats AFTER UPDATE OF status, queue, type, is_recurring, parent_task_id ON tasks
WHEN OLD.status IS NOT NEW.status OR OLD.queue IS NOT NEW.queue OR OLD.type IS NOT NEW.type
  OR OLD.is_recurring IS NOT NEW.is_recurring OR OLD.parent_task_id IS NOT NEW.parent_task_id
BEGIN
${statTasksDelta('OLD', '- 1')}
${statTasksDelta('NEW', '+ 1')}
END;

CREATE TRIGGER tr_tasks_run_stats AFTER UPDATE OF run_count ON tasks
WHEN NEW.run_count > OLD.run_count AND NEW.last_execution_at IS NOT NULL
BEGIN
${runsBucket('stat_runs_hour', 'NEW.last_execution_at / 3600000')}
${runsBucket('stat_runs_day', 'NEW.last_execution_at / 86400000')}
END;
`;
