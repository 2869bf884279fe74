/**
 * Migration 18: the alert rules' states (firing or not, the last message's time), one row per
 * rule and key, written by the alert leader, read by each new leader.
 */
export const pgMigration018AlertStates = `
CREATE TABLE alert_states (
  rule          TEXT NOT NULL,
  rule_key      TEXT NOT NULL DEFAULT '',
  firing        INTEGER NOT NULL,
  changed_at    BIGINT NOT NULL,
  last_sent_at  BIGINT,
  PRIMARY KEY (rule, rule_key)
);
`;
