import type { MisfirePolicy, ScheduleDefinitionView } from '../../contracts/index.js';
import { toIso } from './time.js';
import { jsonObject } from './jsonObject.js';

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/**
 * The stored definition JSON of a durable schedule row, as the console shows it (cron or
 * interval, zone, misfire policy, window, cap, bounds). Unreadable JSON yields none, never an error.
 */
export function parseScheduleDefinition(text: string | null, policy: string | null, zone: string | null): ScheduleDefinitionView | undefined {
  const d = jsonObject(text);
  if (d === undefined) return undefined;
  const misfire = (typeof d.misfire === 'object' && d.misfire !== null ? d.misfire : {}) as Record<string, unknown>;
  const view: ScheduleDefinitionView = {
    timeZone: typeof d.timeZone === 'string' ? d.timeZone : (zone ?? 'UTC'),
    misfirePolicy: (typeof misfire.policy === 'string' ? misfire.policy : (policy ?? 'ReplayAll')) as MisfirePolicy,
    misfireWindowMs: num(misfire.windowMs) ?? 86_400_000,
    overflowCap: num(misfire.overflowCap) ?? 100,
  };
  if (typeof d.cron === 'string') view.cron = d.cron;
  const every = num(d.everyMs);
  if (every !== undefined) {
    view.everyMs = every;
    view.anchorUtc = toIso(num(d.anchorMs));
  }
  view.startAtUtc = toIso(num(d.startAtMs));
  view.untilUtc = toIso(num(d.untilMs));
  view.maxRuns = num(d.maxRuns);
  return view;
}
