/**
 * Which process evaluates the cluster's alert rules. Asked once per look; the answer may change
 * between looks (a leader that dies hands over to the next process that asks).
 */
export interface AlertLeadership {
  isLeader(): Promise<boolean>;
  close(): Promise<void>;
}

/** One process on its own store (SQLite): always the leader. */
export const SOLE_LEADERSHIP: AlertLeadership = { isLeader: async () => true, close: async () => undefined };
