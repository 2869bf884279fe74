import type { MonitoringLogger } from '../options.js';
import type { ResolvedAlertRule } from './alertRules.js';
import { legacySignature, messageId, retryAfterMs, standardWebhookHeaders } from './standardWebhook.js';

/** Messages waiting per webhook at most; beyond, the oldest waiting one is dropped (and counted). */
const MAX_WAITING = 100;

/** What became of delivery attempts and messages (the `result` label of `svc_alert_deliveries_total`). */
export interface DeliveryCounts {
  /** Messages a receiver accepted (2xx). */
  delivered: number;
  /** Attempts that failed and were tried again. */
  retried: number;
  /** Messages given up after their last attempt (or at a refusal that is not retried). */
  failed: number;
  /** Messages dropped unsent over the waiting bound. */
  dropped: number;
}

export interface DeliveryStats extends DeliveryCounts {
  waiting: number;
  lastFailure?: { atUtc: string; rule: string; reason: string };
}

const retryable = (status: number) => status >= 500 || status === 429 || status === 408;

/**
 * The wait before retry `failed + 1`: the backoff doubled per failed attempt, capped, with "equal
 * jitter" (between half and all of it, so that many senders spread out), and never shorter than a
 * receiver's `Retry-After` (itself capped).
 */
export function retryDelay(webhook: ResolvedAlertRule['webhook'], failed: number, retryAfter: number | undefined, random: () => number = Math.random): number {
  const capped = Math.min(webhook.maxBackoffMs, webhook.backoffMs * 2 ** (failed - 1));
  const jittered = capped / 2 + random() * (capped / 2);
  return Math.round(Math.min(webhook.maxBackoffMs, Math.max(jittered, retryAfter ?? 0)));
}

/**
 * Posts alert bodies to webhooks off the engine's path: one delivery at a time per webhook URL
 * (messages keep their order), each attempt bounded by its timeout, retried on 5xx, 429, 408,
 * timeouts and network errors (see retryDelay), given up after the rule's attempts. Each message
 * keeps one `webhook-id` over its attempts; each attempt is signed with its own timestamp.
 */
export class WebhookSender {
  private readonly queues = new Map<string, { rule: ResolvedAlertRule; id: string; body: string }[]>();
  private readonly busy = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly controllers = new Set<AbortController>();
  private closed = false;
  readonly stats: DeliveryStats = { delivered: 0, retried: 0, failed: 0, dropped: 0, waiting: 0 };

  constructor(
    private readonly now: () => number,
    private readonly logger: MonitoringLogger,
  ) {}

  send(rule: ResolvedAlertRule, body: unknown): void {
    if (this.closed) return;
    const key = rule.webhook.url;
    const queue = this.queues.get(key) ?? [];
    this.queues.set(key, queue);
    if (queue.length >= MAX_WAITING) {
      const dropped = queue.shift()!;
      this.stats.dropped++;
      this.noteFailure(dropped.rule, `more than ${MAX_WAITING} messages waiting for this webhook; the oldest (${dropped.id}) was dropped`);
    }
    queue.push({ rule, id: messageId(), body: JSON.stringify(body) });
    this.count();
    void this.drain(key);
  }

  close(): void {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    for (const c of this.controllers) c.abort();
    this.queues.clear();
    this.count();
  }

  private count(): void {
    let n = 0;
    for (const q of this.queues.values()) n += q.length;
    this.stats.waiting = n;
  }

  private noteFailure(rule: ResolvedAlertRule, reason: string): void {
    this.stats.lastFailure = { atUtc: new Date(this.now()).toISOString(), rule: rule.name, reason };
    // The rule's name only: the webhook's address may hold a credential (Slack and Teams put one in the path).
    this.logger.warn(`svc-monitoring: alert "${rule.name}" not delivered: ${reason}`);
  }

  private async drain(key: string): Promise<void> {
    if (this.busy.has(key)) return;
    this.busy.add(key);
    try {
      const queue = this.queues.get(key);
      while (!this.closed && queue && queue.length > 0) {
        const next = queue[0]!;
        await this.deliver(next.rule, next.id, next.body);
        queue.shift();
        this.count();
      }
    } finally {
      this.busy.delete(key);
    }
  }

  private async deliver(rule: ResolvedAlertRule, id: string, body: string): Promise<void> {
    const { url, keys, timeoutMs, attempts } = rule.webhook;
    let reason = '';
    for (let attempt = 1; attempt <= attempts && !this.closed; attempt++) {
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'user-agent': 'svc-monitor-alerts',
        ...standardWebhookHeaders(keys, id, this.now(), body),
      };
      if (keys[0] !== undefined) headers['x-svc-signature'] = legacySignature(keys[0], body);
      const controller = new AbortController();
      this.controllers.add(controller);
      const timer = setTimeout(() => controller.abort(), timeoutMs);
      let retryAfter: number | undefined;
      try {
        const res = await fetch(url, { method: 'POST', headers, body, signal: controller.signal, redirect: 'manual' });
        await res.arrayBuffer().catch(() => undefined);
        if (res.status >= 200 && res.status < 300) {
          this.stats.delivered++;
          return;
        }
        reason = `HTTP ${res.status}`;
        if (!retryable(res.status)) break;
        retryAfter = retryAfterMs(res.headers.get('retry-after'), this.now());
      } catch (err) {
        reason = controller.signal.aborted ? `no answer within ${timeoutMs} ms` : (err as Error).message;
      } finally {
        clearTimeout(timer);
        this.controllers.delete(controller);
      }
      if (attempt < attempts && !this.closed) {
        this.stats.retried++;
        await this.sleep(retryDelay(rule.webhook, attempt, retryAfter));
      }
    }
    if (!this.closed) {
      this.stats.failed++;
      this.noteFailure(rule, `gave up on message ${id} after ${reason}`);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.timers.delete(t);
        resolve();
      }, ms);
      this.timers.add(t);
    });
  }
}
