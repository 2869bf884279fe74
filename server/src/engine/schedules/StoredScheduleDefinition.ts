import type { AuditLevel, MisfirePolicy } from '../../contracts/index.js';
import type { MisfireSettings } from './MisfirePlanner.js';

/** The normalized definition kept as JSON in tasks.schedule_definition. */
export interface StoredScheduleDefinition {
  type: string;
  /** Serialized request (JSON text). */
  request: string;
  queue: string | null;
  auditLevel: AuditLevel | null;
  cron: string | null;
  everyMs: number | null;
  /** Interval schedules: slot k is anchorMs + k·everyMs. */
  anchorMs: number | null;
  timeZone: string;
  misfire: MisfireSettings;
  startAtMs: number | null;
  untilMs: number | null;
  maxRuns: number | null;
}

export const DEFAULT_MISFIRE_WINDOW_MS = 86_400_000;
export const DEFAULT_OVERFLOW_CAP = 100;
export const DEFAULT_MISFIRE_POLICY: MisfirePolicy = 'ReplayAll';

/**
 * Two definitions are the same schedule when everything a user gave is equal; the interval
 * anchor derived from the creation time does not count.
 */
export function sameDefinition(a: StoredScheduleDefinition, b: StoredScheduleDefinition): boolean {
  const strip = (d: StoredScheduleDefinition) => JSON.stringify({ ...d, anchorMs: d.startAtMs === null ? null : d.anchorMs });
  return strip(a) === strip(b);
}

export function parseStoredDefinition(json: string): StoredScheduleDefinition {
  return JSON.parse(json) as StoredScheduleDefinition;
}
