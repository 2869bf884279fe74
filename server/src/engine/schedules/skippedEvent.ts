import type { SvcEvent } from '../../contracts/index.js';
import type { SkippedSlots } from './MisfirePlanner.js';

const REASON_TEXT = {
  OutsideMisfireWindow: 'older than the misfire window',
  OverflowCap: 'over the overflow cap (SkipOldest)',
  NotCurrent: 'no longer current (Skip)',
} as const;

export interface SkippedEventSource {
  scheduleId: string;
  taskKey: string | null;
  type: string;
  handler: string;
  queue: string;
  scheduleVersion: number;
}

/** Dropped slots are reported aggregated: one OccurrenceSkipped event per schedule and reason per planning pass. */
export function skippedEvent(s: SkippedEventSource, skipped: SkippedSlots, nowMs: number): SvcEvent {
  const first = new Date(skipped.firstSlot).toISOString();
  const last = new Date(skipped.lastSlot).toISOString();
  const count = skipped.exact ? `${skipped.count}` : `at least ${skipped.count}`;
  return {
    kind: 'OccurrenceSkipped',
    taskId: s.scheduleId,
    eventDateUtc: new Date(nowMs).toISOString(),
    severity: 'Warning',
    taskType: s.type,
    taskHandlerType: s.handler,
    queueName: s.queue,
    message: `Schedule ${s.taskKey === null ? s.scheduleId : `"${s.taskKey}"`} dropped ${count} slot(s) ${REASON_TEXT[skipped.reason]}, from ${first} through ${last}.`,
    reason: skipped.reason,
    skippedCount: skipped.count,
    firstSlotUtc: first,
    lastSlotUtc: last,
    scheduleVersion: s.scheduleVersion,
  };
}
