import { CronSlotSource } from './CronSlotSource.js';
import { IntervalSlotSource } from './IntervalSlotSource.js';
import { ScheduleOperationError } from './ScheduleManager.js';
import type { SlotSource } from './SlotSource.js';
import type { StoredScheduleDefinition } from './StoredScheduleDefinition.js';
import { isKnownTimeZone } from '../../time/wallTime.js';

/**
 * The slots of a stored definition. A definition that cannot be evaluated (unknown zone, a
 * cron that never fires after `fromMs`) → ScheduleOperationError 'Unavailable'
 * (the management call answers 503 and nothing is written).
 */
export function createSlotSource(def: StoredScheduleDefinition): SlotSource {
  if (!isKnownTimeZone(def.timeZone)) {
    throw new ScheduleOperationError('Unavailable', `Time zone "${def.timeZone}" is not known to this runtime; the schedule cannot be evaluated.`);
  }
  let source: SlotSource;
  try {
    source =
      def.cron !== null
        ? new CronSlotSource(def.cron, def.timeZone, def.startAtMs ?? Number.NEGATIVE_INFINITY, def.untilMs ?? Number.POSITIVE_INFINITY)
        : new IntervalSlotSource(def.anchorMs!, def.everyMs!, def.untilMs ?? Number.POSITIVE_INFINITY);
  } catch (err) {
    throw new ScheduleOperationError('Unavailable', `The schedule cannot be evaluated: ${(err as Error).message}`);
  }
  return source;
}

/** Throws Unavailable when the definition never fires after `afterMs` (checked at upsert). */
export function assertFiresAfter(source: SlotSource, def: StoredScheduleDefinition, afterMs: number): void {
  if (def.cron !== null && source.firstAfter(afterMs) === null && (def.untilMs === null || def.untilMs > afterMs)) {
    throw new ScheduleOperationError('Unavailable', `Cron "${def.cron}" never fires in ${def.timeZone}; the schedule cannot be evaluated.`);
  }
}
