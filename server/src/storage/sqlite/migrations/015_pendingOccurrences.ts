/**
 * Migration 15: compact Pending occurrences. A catch-up writes up to millions of occurrences at
 * once; as task rows each one costs a row in every index of the task table, a status audit and a
 * search row. Here each is one small row that names its schedule (the schedule row in `tasks`
 * holds what all of them share: type, request, queue, audit level, time zone, trace context) and
 * its own identity (id, slot, due time, run number, misfire columns), by the schedule's number in
 * `occurrence_schedules`. A compact occurrence becomes a task row (its Pending audit and search
 * row written then) when it is due, or as soon as anything but a read touches it or its schedule
 * (see `schedules/spillPendingOccurrences.ts`).
 *
 * `pending_occurrence_tasks` shows each compact occurrence as the task row it stands for, column
 * for column as `tasks` names them, so that a read can ask both the same question. Its `rowid`
 * (2^40 + seq) orders compact occurrences after every task row created in the same millisecond.
 */
export const migration015PendingOccurrences = `
-- A schedule's number for its compact occurrences: an INTEGER PRIMARY KEY, which VACUUM keeps
-- (the task table's implicit rowid it may renumber).
CREATE TABLE occurrence_schedules (
  ref          INTEGER PRIMARY KEY,
  schedule_id  TEXT NOT NULL UNIQUE
);
CREATE TABLE pending_occurrences (
  seq                   INTEGER PRIMARY KEY,         -- insertion order among compact occurrences
  id                    TEXT NOT NULL UNIQUE,        -- the task id it keeps as a task row
  schedule_ref          INTEGER NOT NULL,            -- occurrence_schedules.ref of its schedule
  nominal_slot_at       INTEGER NOT NULL,
  scheduled_at          INTEGER NOT NULL,            -- due time
  created_at            INTEGER NOT NULL,
  run_number            INTEGER NOT NULL,
  schedule_version      INTEGER NOT NULL,
  handler               TEXT,                        -- NULL: the schedule row's handler
  misfire_kind          TEXT,
  missed_from           INTEGER,
  missed_through        INTEGER,
  missed_count          INTEGER,
  missed_count_is_exact INTEGER
);
CREATE UNIQUE INDEX ux_pending_occurrences_slot ON pending_occurrences (schedule_ref, nominal_slot_at);
CREATE INDEX ix_pending_occurrences_due ON pending_occurrences (scheduled_at);

CREATE VIEW pending_occurrence_tasks AS
SELECT
  p.id AS id, s.type AS type, COALESCE(p.handler, s.handler) AS handler, s.request AS request, s.queue AS queue,
  'Pending' AS status, NULL AS task_key, s.audit_level AS audit_level, p.created_at AS created_at,
  p.scheduled_at AS scheduled_at, NULL AS started_at, NULL AS last_execution_at, NULL AS execution_time_ms,
  0 AS run_count, NULL AS last_outcome, 0 AS attempt, NULL AS retry_policy, NULL AS timeout_ms, NULL AS exception,
  NULL AS throttled_until, NULL AS rate_limit_key, 0 AS is_recurring, NULL AS recurrence,
  'Durable' AS occurrence_mode, NULL AS misfire_policy, s.time_zone_id AS time_zone_id,
  p.schedule_version AS schedule_version, NULL AS schedule_definition, NULL AS cursor_at, NULL AS halt,
  s.id AS parent_task_id, p.nominal_slot_at AS nominal_slot_at, p.run_number AS run_number,
  p.misfire_kind AS misfire_kind, p.missed_from AS missed_from, p.missed_through AS missed_through,
  p.missed_count AS missed_count, p.missed_count_is_exact AS missed_count_is_exact, 1 AS is_occurrence,
  NULL AS reserved_by, NULL AS reserved_at, NULL AS run_token, 0 AS abandoned_count,
  s.traceparent AS traceparent, s.tracestate AS tracestate,
  p.seq + 1099511627776 AS rowid, p.seq AS seq, p.schedule_ref AS schedule_ref
FROM pending_occurrences p JOIN occurrence_schedules r ON r.ref = p.schedule_ref JOIN tasks s ON s.id = r.schedule_id;
`;
