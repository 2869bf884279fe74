/**
 * Migration 1: the task table and its three history tables.
 * All timestamps are INTEGER milliseconds since the Unix epoch (UTC); the monitoring layer
 * turns them into ISO 8601 strings. Booleans are INTEGER 0/1.
 */
export const migration001Tasks = `
CREATE TABLE tasks (
  id                    TEXT PRIMARY KEY,            -- GUID
  type                  TEXT NOT NULL,               -- full dotted type name
  handler               TEXT NOT NULL,               -- full handler name
  request               TEXT NOT NULL,               -- serialized request (JSON text)
  queue                 TEXT NOT NULL,
  status                TEXT NOT NULL,               -- status name (WaitingQueue, Queued, InProgress, ...)
  task_key              TEXT,
  audit_level           TEXT NOT NULL,               -- Full | ErrorsOnly | None
  created_at            INTEGER NOT NULL,
  scheduled_at          INTEGER,                     -- scheduledExecutionUtc: when it is due
  started_at            INTEGER,                     -- start of the current or last run
  last_execution_at     INTEGER,                     -- END of the last run (lastExecutionUtc)
  execution_time_ms     REAL,                        -- measured duration of the last run; 0 when it threw
  run_count             INTEGER NOT NULL DEFAULT 0,  -- finished runs; each increment feeds the run statistics
  last_outcome          TEXT,                        -- Completed | Failed: outcome of the last finished run
  attempt               INTEGER NOT NULL DEFAULT 0,  -- attempts spent in the current delivery
  retry_policy          TEXT,                        -- JSON
  timeout_ms            INTEGER,
  exception             TEXT,                        -- last error text
  throttled_until       INTEGER,                     -- rate limit: a Queued row waits until then
  rate_limit_key        TEXT,
  is_recurring          INTEGER NOT NULL DEFAULT 0,
  recurrence            TEXT,                        -- inline recurring definition (JSON)
  -- durable schedule row (definition)
  occurrence_mode       TEXT,                        -- 'Durable' on schedule rows and their occurrences
  misfire_policy        TEXT,
  time_zone_id          TEXT,
  schedule_version      INTEGER,
  schedule_definition   TEXT,                        -- JSON
  cursor_at             INTEGER,                     -- last slot accounted for by the materializer
  halt                  TEXT,                        -- JSON halt block (catch-up halted over its cap) or NULL
  -- occurrence identity
  parent_task_id        TEXT,
  nominal_slot_at       INTEGER,
  run_number            INTEGER,
  misfire_kind          TEXT,
  missed_from           INTEGER,
  missed_through        INTEGER,
  missed_count          INTEGER,
  missed_count_is_exact INTEGER,
  is_occurrence         INTEGER GENERATED ALWAYS AS (parent_task_id IS NOT NULL) VIRTUAL
);

CREATE INDEX ix_tasks_created ON tasks (created_at);
CREATE INDEX ix_tasks_status_created ON tasks (status, created_at);
CREATE INDEX ix_tasks_queue_created ON tasks (queue, created_at);
CREATE INDEX ix_tasks_type_created ON tasks (type, created_at);
CREATE INDEX ix_tasks_due ON tasks (status, scheduled_at);
CREATE INDEX ix_tasks_key ON tasks (task_key) WHERE task_key IS NOT NULL;
CREATE INDEX ix_tasks_parent_created ON tasks (parent_task_id, created_at) WHERE parent_task_id IS NOT NULL;
CREATE UNIQUE INDEX ux_tasks_parent_slot ON tasks (parent_task_id, nominal_slot_at) WHERE parent_task_id IS NOT NULL;
CREATE INDEX ix_tasks_throttled ON tasks (throttled_until) WHERE throttled_until IS NOT NULL;
CREATE INDEX ix_tasks_halted ON tasks (id) WHERE halt IS NOT NULL;
-- the engine's claim and admission walk: oldest Queued / WaitingQueue rows of one queue
CREATE INDEX ix_tasks_queue_status_created ON tasks (queue, status, created_at);

CREATE TABLE status_audit (
  id          INTEGER PRIMARY KEY,
  task_id     TEXT NOT NULL,
  updated_at  INTEGER NOT NULL,
  new_status  TEXT NOT NULL,
  exception   TEXT
);
CREATE INDEX ix_status_audit_task ON status_audit (task_id, id);

CREATE TABLE runs_audit (
  id                 INTEGER PRIMARY KEY,
  task_id            TEXT NOT NULL,
  executed_at        INTEGER NOT NULL,               -- end of the run
  execution_time_ms  REAL NOT NULL,
  status             TEXT NOT NULL,                  -- Completed | Failed
  exception          TEXT
);
CREATE INDEX ix_runs_audit_task ON runs_audit (task_id, id);

CREATE TABLE execution_logs (
  id                 INTEGER PRIMARY KEY,
  task_id            TEXT NOT NULL,
  timestamp          INTEGER NOT NULL,
  level              TEXT NOT NULL,                  -- Trace | Debug | Information | Warning | Error
  message            TEXT NOT NULL,
  exception_details  TEXT,
  sequence_number    INTEGER NOT NULL
);
CREATE INDEX ix_execution_logs_task ON execution_logs (task_id, sequence_number);
`;
