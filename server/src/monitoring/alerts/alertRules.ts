import { OptionReader } from '../../options/OptionReader.js';
import { signingKey } from './standardWebhook.js';

/**
 * What a rule watches: failed tasks (events), halted schedules, a queue's backlog, the engine's
 * health (read models and health); OperatorAction posts each operator audit record (sign-ins,
 * management actions and their refusals) as it is kept.
 */
export const ALERT_KINDS = ['TaskFailed', 'ScheduleHalted', 'QueueBacklog', 'EngineDegraded', 'OperatorAction'] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];
/** Body shapes: the plain JSON document, or a chat service's incoming-webhook form. */
export const WEBHOOK_PRESETS = ['json', 'slack', 'teams'] as const;
export type WebhookPreset = (typeof WEBHOOK_PRESETS)[number];

export interface AlertWebhook {
  url: string;
  /**
   * Signs each message per Standard Webhooks (`webhook-signature`); a list while a secret is
   * rotated (newest first: every one signs). `whsec_<base64>` is the standard form; other text is
   * used as a raw key. The first also signs the older `X-Svc-Signature`.
   */
  secret?: string | string[];
  /** Default `json`. */
  preset?: WebhookPreset;
  /** One delivery attempt's limit (default 5000 ms). */
  timeoutMs?: number;
  /** Attempts per message, the first included (default 5); 5xx, 429, timeouts and network errors are retried. */
  attempts?: number;
  /** Delay before the first retry, doubled for each next one, with jitter (default 1000 ms). */
  backoffMs?: number;
  /** The longest wait between attempts, a receiver's `Retry-After` included (default 60000 ms). */
  maxBackoffMs?: number;
}

export interface AlertRule {
  on: AlertKind;
  /** A name for the messages (default: `on` and the rule's position). */
  name?: string;
  /** TaskFailed: only these task types (exact names). */
  types?: string[];
  /** TaskFailed and QueueBacklog: only these queues. */
  queues?: string[];
  /** TaskFailed: failures in a window that fire the rule (default 1); QueueBacklog: Queued tasks above which it fires (default 1000). */
  threshold?: number;
  /** One message per rule per window at most (default 60000 ms); a window without a new match resolves a TaskFailed rule. */
  windowMs?: number;
  /**
   * Level rules (ScheduleHalted, QueueBacklog, EngineDegraded): how long (ms) the condition must
   * hold before the rule fires, and stay away before it resolves (default 0: at the next look).
   */
  for?: number;
  webhook: AlertWebhook;
}

export interface ResolvedAlertRule {
  on: AlertKind;
  name: string;
  types: ReadonlySet<string> | null;
  queues: ReadonlySet<string> | null;
  threshold: number;
  windowMs: number;
  /** Hold time of a level rule's change of state (ms). */
  forMs: number;
  webhook: Required<Omit<AlertWebhook, 'secret'>> & {
    /** The HMAC keys of the secrets, newest first (none: unsigned). */
    keys: Buffer[];
  };
}

const RULE_KEYS = ['on', 'name', 'types', 'queues', 'threshold', 'windowMs', 'for', 'webhook'];
const WEBHOOK_KEYS = ['url', 'secret', 'preset', 'timeoutMs', 'attempts', 'backoffMs', 'maxBackoffMs'];
const DEFAULT_BACKLOG = 1000;

/** Validates the `alerts` option; every error names the rule's path (`alerts[1].webhook.url`). */
export function resolveAlertRules(owner: string, raw: unknown): ResolvedAlertRule[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new OptionReader(owner, {}).fail('alerts', 'must be an array of rules like [{"on":"TaskFailed","webhook":{"url":"https://…"}}]');
  return raw.map((item, i) => {
    const rule = new OptionReader(owner, item, RULE_KEYS, `alerts[${i}]`);
    if (!rule.has('on')) throw rule.fail('on', `is required (one of ${ALERT_KINDS.join(', ')})`);
    const kind = rule.oneOf('on', ALERT_KINDS, 'TaskFailed');
    const hook = rule.child('webhook', WEBHOOK_KEYS);
    const url = hook.string('url', null);
    if (url === null) throw hook.fail('url', 'is required');
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw hook.fail('url', `is not an absolute URL (got "${url}")`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw hook.fail('url', 'must be an http or https URL');
    const preset = hook.oneOf('preset', WEBHOOK_PRESETS, 'json');
    const rawSecret = hook.value('secret');
    const secrets = rawSecret === undefined || rawSecret === null ? [] : typeof rawSecret === 'string' ? [hook.string('secret', '') as string] : hook.strings('secret');
    if (rawSecret !== undefined && rawSecret !== null && secrets.length === 0) throw hook.fail('secret', 'must be a secret or a non-empty list of them');
    const keys = secrets.map((secret) => {
      try {
        return signingKey(secret);
      } catch (err) {
        throw hook.fail('secret', (err as Error).message);
      }
    });
    if (kind === 'TaskFailed' && rule.has('for')) throw rule.fail('for', 'applies to level rules only (ScheduleHalted, QueueBacklog, EngineDegraded); a TaskFailed rule counts in windowMs');
    const list = (name: 'types' | 'queues') => (rule.has(name) ? new Set(rule.strings(name)) : null);
    return {
      on: kind,
      name: rule.string('name', `${kind} #${i + 1}`) as string,
      types: list('types'),
      queues: list('queues'),
      threshold: rule.integer('threshold', kind === 'QueueBacklog' ? DEFAULT_BACKLOG : 1, { min: kind === 'QueueBacklog' ? 0 : 1 }),
      windowMs: rule.integer('windowMs', 60_000, { min: 1 }),
      forMs: rule.integer('for', 0, { min: 0 }),
      webhook: {
        url,
        keys,
        preset,
        timeoutMs: hook.integer('timeoutMs', 5000, { min: 1 }),
        attempts: hook.integer('attempts', 5, { min: 1, max: 20 }),
        backoffMs: hook.integer('backoffMs', 1000, { min: 0 }),
        maxBackoffMs: hook.integer('maxBackoffMs', 60_000, { min: 0 }),
      },
    };
  });
}
