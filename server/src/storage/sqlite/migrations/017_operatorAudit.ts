/**
 * Migration 18: the operator audit trail (sign-ins, management actions, their refusals). One row
 * per record; `bulk` holds a bulk action's filter and counts as JSON text. Read newest first
 * (id), by time range (at), by actor and by target.
 */
export const migration017OperatorAudit = `
CREATE TABLE operator_audit (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  at              INTEGER NOT NULL,
  actor           TEXT NOT NULL,
  auth_method     TEXT,
  role            TEXT,
  client_address  TEXT,
  user_agent      TEXT,
  action          TEXT NOT NULL,
  target_id       TEXT,
  result          TEXT NOT NULL,
  status          INTEGER,
  message         TEXT,
  bulk            TEXT
);
CREATE INDEX ix_operator_audit_at ON operator_audit (at);
CREATE INDEX ix_operator_audit_actor ON operator_audit (actor, id);
CREATE INDEX ix_operator_audit_target ON operator_audit (target_id, id) WHERE target_id IS NOT NULL;
`;
