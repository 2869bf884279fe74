/** One alert rule's state as its evaluator last wrote it (`key` '' for a rule over the whole store). */
export interface AlertState {
  rule: string;
  key: string;
  firing: boolean;
  /** When `firing` took its value (ms). */
  changedAtMs: number;
  /** When the rule last sent a message (ms; null: never). */
  lastSentAtMs: number | null;
}

/**
 * The `alert_states` table of either backend: what the alert evaluator (the leader on PostgreSQL)
 * knows of each rule, so that a restarted process or a new leader neither fires a rule again nor
 * forgets to resolve it. One row per rule and key, overwritten at each change.
 */
export interface AlertStateStore {
  list(): Promise<AlertState[]>;
  save(state: AlertState): Promise<void>;
}
