/**
 * Migration 18: the alert rules' states (firing or not, the last message's time), one row per
 * rule and key, written by the process that evaluates the rules, read when it starts.
 */
export const migration018AlertStates = `
CREATE TABLE alert_states (
  rule          TEXT NOT NULL,
  rule_key      TEXT NOT NULL DEFAULT '',
  firing        INTEGER NOT NULL,
  changed_at    INTEGER NOT NULL,
  last_sent_at  INTEGER,
  PRIMARY KEY (rule, rule_key)
);
`;
