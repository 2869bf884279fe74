import type { ResumeOutlook, ScheduleDefinitionView, TaskDetail } from '../../server/src/contracts/task.js';
import { formatDuration, formatInt } from './format.js';

/** "every 1 min" / "cron 0 2 * * *", zone, policy, window, cap (and bounds): one line. */
export function describeDefinition(def: ScheduleDefinitionView): string {
  const when = def.cron ? `cron ${def.cron}` : def.everyMs !== undefined ? `every ${formatDuration(def.everyMs)}` : 'unknown pattern';
  const parts = [
    when,
    `in ${def.timeZone}`,
    `misfire policy ${def.misfirePolicy}`,
    `window ${formatDuration(def.misfireWindowMs)}`,
    `overflow cap ${formatInt(def.overflowCap)}`,
  ];
  if (def.maxRuns !== undefined) parts.push(`max ${formatInt(def.maxRuns)} runs`);
  return parts.join(' · ');
}

/** How far behind a halted schedule is: "1,199 slots (20h 0m) behind". */
export function describeBehind(o: ResumeOutlook): string {
  return `${o.missedSlotsIsExact ? '' : '≥ '}${formatInt(o.missedSlots)} slots (${formatDuration(o.behindSeconds * 1000)}) behind`;
}

/** What resume will do, and what would let the backlog through when it would halt again. */
export function describeResume(o: ResumeOutlook, def: ScheduleDefinitionView | undefined): { verdict: string; fixes: string[] } {
  if (o.outcome === 'Replays') {
    const skipped = o.skipCount > 0 ? ` and drop ${formatInt(o.skipCount)} slots` : '';
    return { verdict: `Resume will replay ${formatInt(o.replayCount)} missed occurrence${o.replayCount === 1 ? '' : 's'}${skipped}.`, fixes: [] };
  }
  const inWindow = `${o.slotsInWindowIsExact ? '' : '≥ '}${formatInt(o.slotsInWindow)}`;
  const cap = def ? formatInt(def.overflowCap) : 'the cap';
  const fixes: string[] = [];
  if (o.capNeeded !== undefined) fixes.push(`raise the overflow cap to at least ${formatInt(o.capNeeded)}`);
  fixes.push('change the misfire policy to SkipOldest, Collapse or Skip (replays at most the cap, one, or the latest slot)');
  if (def) fixes.push(`shorten the misfire window (now ${formatDuration(def.misfireWindowMs)}) so fewer slots are replayed`);
  return {
    verdict: `Resume will halt again at once: ${inWindow} slots in the misfire window exceed the overflow cap (${cap}).`,
    fixes,
  };
}

/** A schedule row's own status, as a person reads it (the spec keeps it Pending while active). */
export function scheduleState(t: Pick<TaskDetail, 'status' | 'halt'>): string {
  if (t.halt) return 'Halted';
  if (t.status === 'Pending') return 'Active schedule';
  return t.status;
}
