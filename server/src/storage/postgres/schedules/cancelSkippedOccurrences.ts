import type { PostgresStorage } from '../PostgresStorage.js';
import { cancelOpenOccurrences, type OpenOccurrence } from './cancelOpenOccurrences.js';

/** Follow-up transactions tried at most this many times, this far apart (two seconds in all). */
const TRIES = 100;
const PAUSE_MS = 20;

/**
 * After a schedule cancel or definition change committed: the not-started occurrences it skipped
 * because another transaction held them (cancelOpenOccurrences) are cancelled in transactions of
 * their own, once their holder is done. An engine's claim leaves such a row Queued and reserved
 * (cancelled here; the engine then never begins it), a start leaves it InProgress (running: it
 * finishes, as every running occurrence of a cancelled schedule does). Without this, an occurrence
 * claimed at the instant of the cancel escaped it and ran after the cancel answered. Answers how
 * many it cancelled; stops once none is left, or after TRIES (a row held that long is left as is).
 */
export async function cancelSkippedOccurrences(storage: PostgresStorage, scheduleId: string, now: number, which?: (o: OpenOccurrence) => boolean): Promise<number> {
  let cancelled = 0;
  for (let attempt = 0; attempt < TRIES; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
    const round = await storage.transaction((c) => cancelOpenOccurrences(c, scheduleId, now, which));
    cancelled += round.cancelled;
    if (round.skipped === 0) break;
  }
  return cancelled;
}
