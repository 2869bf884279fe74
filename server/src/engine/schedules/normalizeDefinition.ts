import { Cron } from 'croner';
import type { AuditLevel, MisfirePolicy } from '../../contracts/index.js';
import { parseDuration } from './parseDuration.js';
import { hasUnstorable } from '../storableText.js';
import { UNSTORABLE_NAME } from '../validation.js';
import type { DurableScheduleDefinition } from './ScheduleManager.js';
import {
  DEFAULT_MISFIRE_POLICY,
  DEFAULT_MISFIRE_WINDOW_MS,
  DEFAULT_OVERFLOW_CAP,
  type StoredScheduleDefinition,
} from './StoredScheduleDefinition.js';

const POLICIES: readonly MisfirePolicy[] = ['ReplayAll', 'SkipOldest', 'Collapse', 'Skip'];
const AUDIT_LEVELS: readonly AuditLevel[] = ['Full', 'ErrorsOnly', 'None'];

function bad(message: string): never {
  throw new TypeError(`schedules.upsert: ${message}`);
}

function toMs(value: Date | string | undefined, name: string): number | null {
  if (value === undefined || value === null) return null;
  const ms = value instanceof Date ? value.getTime() : typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(ms)) bad(`"${name}" is not a valid date`);
  return ms;
}

/**
 * Validates an upsert definition (bad input → TypeError naming the field) and normalizes it.
 * The time zone is not checked here: an unknown zone makes the definition unevaluable
 * (Unavailable), see createSlotSource. `nowMs` anchors interval schedules without startAt.
 */
export function normalizeDefinition(def: DurableScheduleDefinition, nowMs: number, previousAnchorMs: number | null): StoredScheduleDefinition {
  if (def === null || typeof def !== 'object') bad('definition must be an object');
  if (typeof def.key !== 'string' || def.key.trim() === '') bad('"key" is required (a non-empty string)');
  if (typeof def.type !== 'string' || def.type.trim() === '') bad('"type" is required (a non-empty string)');
  const hasCron = def.cron !== undefined && def.cron !== null;
  const hasEvery = def.every !== undefined && def.every !== null;
  if (hasCron === hasEvery) bad('give exactly one of "cron" or "every"');

  let request: string;
  try {
    request = JSON.stringify(def.request ?? null);
  } catch (err) {
    bad(`"request" is not JSON-serializable (${(err as Error).message})`);
  }
  if (request === undefined) bad('"request" is not JSON-serializable');

  let cron: string | null = null;
  let everyMs: number | null = null;
  if (hasCron) {
    if (typeof def.cron !== 'string' || def.cron.trim() === '') bad('"cron" must be a non-empty string');
    if (def.cron.includes('?')) bad('"cron" must not use "?" (its value would depend on the time of parsing)');
    try {
      new Cron(def.cron, { paused: true });
    } catch (err) {
      bad(`"cron" is invalid: ${(err as Error).message}`);
    }
    cron = def.cron.trim();
  } else {
    everyMs = parseDuration(def.every as number | string);
    if (everyMs === null) bad(`"every" must be a positive integer of milliseconds or a duration like "5m" (got ${JSON.stringify(def.every)})`);
  }

  const timeZone = def.timeZone ?? 'UTC';
  if (typeof timeZone !== 'string' || timeZone.trim() === '') bad('"timeZone" must be an IANA zone name');

  const misfire = def.misfire ?? {};
  if (typeof misfire !== 'object') bad('"misfire" must be an object');
  const policy = misfire.policy ?? DEFAULT_MISFIRE_POLICY;
  if (!POLICIES.includes(policy)) bad(`"misfire.policy" must be one of ${POLICIES.join(', ')}`);
  const windowMs = misfire.windowMs ?? DEFAULT_MISFIRE_WINDOW_MS;
  if (!Number.isInteger(windowMs) || windowMs < 0) bad('"misfire.windowMs" must be a non-negative integer');
  const overflowCap = misfire.overflowCap ?? DEFAULT_OVERFLOW_CAP;
  if (!Number.isInteger(overflowCap) || overflowCap < 0) bad('"misfire.overflowCap" must be a non-negative integer');

  const startAtMs = toMs(def.startAt, 'startAt');
  const untilMs = toMs(def.until, 'until');
  if (startAtMs !== null && untilMs !== null && untilMs < startAtMs) bad('"until" is before "startAt"');
  const maxRuns = def.maxRuns ?? null;
  if (maxRuns !== null && (!Number.isInteger(maxRuns) || maxRuns < 1)) bad('"maxRuns" must be a positive integer');
  const queue = def.queue ?? null;
  if (queue !== null && (typeof queue !== 'string' || queue === '')) bad('"queue" must be a non-empty string');
  for (const [field, value] of [['key', def.key], ['type', def.type], ['queue', queue]] as const) {
    if (value !== null && hasUnstorable(value)) bad(`"${field}" ${UNSTORABLE_NAME}`);
  }
  const auditLevel = def.auditLevel ?? null;
  if (auditLevel !== null && !AUDIT_LEVELS.includes(auditLevel)) bad(`"auditLevel" must be one of ${AUDIT_LEVELS.join(', ')}`);

  const anchorMs = everyMs === null ? null : (startAtMs ?? previousAnchorMs ?? nowMs);
  return {
    type: def.type,
    request,
    queue,
    auditLevel,
    cron,
    everyMs,
    anchorMs,
    timeZone,
    misfire: { policy, windowMs, overflowCap },
    startAtMs,
    untilMs,
    maxRuns,
  };
}
