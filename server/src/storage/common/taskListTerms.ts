/** Conditions that the stat_tasks counters can answer (their dimensions). */
export interface StatDimensions {
  statuses?: readonly string[];
  queue?: string;
  types?: readonly string[];
  isRecurring?: number;
  isOccurrence?: number;
}

/** The shortest search term the key index can find (it indexes three-character sequences); shorter ones scan the keys. */
export const KEY_INDEX_MIN_CHARS = 3;
