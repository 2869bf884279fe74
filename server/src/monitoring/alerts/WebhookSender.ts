import { createHmac } from 'node:crypto';
import type { ResolvedAlertRule } from './alertRules.js';

/** Messages waiting per webhook at most; beyond, the oldest waiting one is dropped (and counted). */
const MAX_WAITING = 100;

export interface DeliveryStats {
  delivered: number;
  /** Messages given up after their last attempt, or dropped over the waiting bound. */
  failed: number;
  waiting: number;
  lastFailure?: { atUtc: string; rule: string; reason: string };
}

/** `sha256=<hex>`: the HMAC-SHA256 of the exact body bytes with the rule's secret. */
export function signature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

const retryable = (status: number) => status >= 500 || status === 429 || status === 408;

/**
 * Posts alert bodies to webhooks off the engine's path: one delivery at a time per webhook URL
 * (messages keep their order), each attempt bounded by its timeout, retried with exponential
 * backoff on 5xx, 429, timeouts and network errors, given up after the rule's attempts.
 */
export class WebhookSender {
  private readonly queues = new Map<string, { rule: ResolvedAlertRule; body: string }[]>();
  private readonly busy = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly controllers = new Set<AbortController>();
  private closed = false;
  readonly stats: DeliveryStats = { delivered: 0, failed: 0, waiting: 0 };

  constructor(private readonly now: () => number) {}

  send(rule: ResolvedAlertRule, body: unknown): void {
    if (this.closed) return;
    const key = rule.webhook.url;
    const queue = this.queues.get(key) ?? [];
    this.queues.set(key, queue);
    if (queue.length >= MAX_WAITING) {
      const dropped = queue.shift()!;
      this.fail(dropped.rule, `more than ${MAX_WAITING} messages waiting for this webhook; the oldest was dropped`);
    }
    queue.push({ rule, body: JSON.stringify(body) });
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

  private fail(rule: ResolvedAlertRule, reason: string): void {
    this.stats.failed++;
    this.stats.lastFailure = { atUtc: new Date(this.now()).toISOString(), rule: rule.name, reason };
  }

  private async drain(key: string): Promise<void> {
    if (this.busy.has(key)) return;
    this.busy.add(key);
    try {
      const queue = this.queues.get(key);
      while (!this.closed && queue && queue.length > 0) {
        const next = queue[0]!;
        await this.deliver(next.rule, next.body);
        queue.shift();
        this.count();
      }
    } finally {
      this.busy.delete(key);
    }
  }

  private async deliver(rule: ResolvedAlertRule, body: string): Promise<void> {
    const { url, secret, timeoutMs, attempts, backoffMs } = rule.webhook;
    const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'svc-monitor-alerts' };
    if (secret !== null) headers['x-svc-signature'] = signature(secret, body);
    let reason = '';
    for (let attempt = 1; attempt <= attempts && !this.closed; attempt++) {
      const controller = new AbortController();
      this.controllers.add(controller);
      const timer = setTimeout(() => controller.abort(), timeoutMs);
      try {
        const res = await fetch(url, { method: 'POST', headers, body, signal: controller.signal, redirect: 'manual' });
        await res.arrayBuffer().catch(() => undefined);
        if (res.status < 300) {
          this.stats.delivered++;
          return;
        }
        reason = `HTTP ${res.status}`;
        if (!retryable(res.status)) break;
      } catch (err) {
        reason = controller.signal.aborted ? `no answer within ${timeoutMs} ms` : (err as Error).message;
      } finally {
        clearTimeout(timer);
        this.controllers.delete(controller);
      }
      if (attempt < attempts) await this.sleep(backoffMs * 2 ** (attempt - 1));
    }
    if (!this.closed) this.fail(rule, `gave up after ${reason}`);
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
