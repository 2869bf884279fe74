/**
 * Migration 4: what the monitoring queries need beyond migrations 1–2.
 * - Sort indexes for the task-list sort fields that have none (each list page is an index walk).
 * - The oldest not-started occurrence slot for the catch-up backlog of the overview.
 * - `monitor_type_handlers`: the small set of distinct (type, handler) pairs, kept by triggers,
 *   against which `taskType` and `searchTerm` substrings are resolved before the task table is
 *   read with `type IN (...)` on its index.
 */
export const migration004Monitoring = `
CREATE INDEX IF NOT EXISTS ix_tasks_execution_time ON tasks (execution_time_ms);
CREATE INDEX IF NOT EXISTS ix_tasks_last_execution ON tasks (last_execution_at);
CREATE INDEX IF NOT EXISTS ix_tasks_scheduled ON tasks (scheduled_at);
CREATE INDEX IF NOT EXISTS ix_tasks_started ON tasks (started_at);
CREATE INDEX IF NOT EXISTS ix_tasks_occurrence_status_slot ON tasks (status, nominal_slot_at)
  WHERE parent_task_id IS NOT NULL;

CREATE TABLE IF NOT EXISTS monitor_type_handlers (
  type     TEXT NOT NULL,
  handler  TEXT NOT NULL,
  PRIMARY KEY (type, handler)
) WITHOUT ROWID;
INSERT OR IGNORE INTO monitor_type_handlers (type, handler) SELECT DISTINCT type, handler FROM tasks;

CREATE TRIGGER IF NOT EXISTS tr_tasks_insert_type_handler AFTER INSERT ON tasks BEGIN
  INSERT OR IGNORE INTO monitor_type_handlers (type, handler) VALUES (NEW.type, NEW.handler);
END;
CREATE TRIGGER IF NOT EXISTS tr_tasks_update_type_handler AFTER UPDATE OF type, handler ON tasks
WHEN OLD.type IS NOT NEW.type OR OLD.handler IS NOT NEW.handler BEGIN
  INSERT OR IGNORE INTO monitor_type_handlers (type, handler) VALUES (NEW.type, NEW.handler);
END;
`;
