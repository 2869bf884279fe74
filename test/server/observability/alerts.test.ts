import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveOptions } from '../../../server/src/monitoring/options.js';
import { closeAll, harness, sleep } from '../../fixtures/server/engineHarness.js';
import { waitFor } from '../../fixtures/waitFor.js';
import { insertTask, serve, createTempDatabase, type Served } from '../../fixtures/server/servedMonitoring.js';
import { webhookReceiver } from '../../fixtures/server/webhookReceiver.js';

let served: Served | undefined;
const receivers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await served?.close();
  served = undefined;
  for (const r of receivers.splice(0)) await r.close();
  await closeAll();
});

async function receiver(answer?: (n: number) => number | 'hang') {
  const r = await webhookReceiver(answer);
  receivers.push(r);
  return r;
}

/** An engine whose `boom` tasks fail at once, and whose `ok` tasks complete, served with `alerts`. */
async function engineWith(alerts: unknown[], extra: Record<string, unknown> = {}) {
  const h = harness({ pollIntervalMs: 20 });
  h.engine.handle('boom', async () => {
    throw new Error('exploded');
  });
  h.engine.handle('ok', async () => undefined);
  await h.engine.start();
  served = await serve({ engine: h.engine, storage: h.storage }, { enableAuthentication: false, alerts: alerts as never, ...extra });
  return h;
}

describe('alert webhooks', () => {
  it('a failed task posts one signed JSON document with the rule, count, task ids and dashboard links', async () => {
    const hook = await receiver();
    const secret = 'hook-secret';
    const h = await engineWith([{ on: 'TaskFailed', name: 'failures', types: ['boom'], webhook: { url: hook.url, secret } }], {
      publicUrl: 'https://ops.example.com',
    });
    const id = await h.engine.dispatch('boom', {});
    await h.engine.dispatch('ok', {});
    await waitFor(() => hook.received.length === 1, 5000, 'one alert');
    const [msg] = hook.received;
    expect(msg!.headers['content-type']).toBe('application/json');
    const expected = `sha256=${createHmac('sha256', secret).update(msg!.body).digest('hex')}`;
    expect(msg!.headers['x-svc-signature']).toBe(expected);
    expect(msg!.json).toMatchObject({
      rule: 'failures',
      on: 'TaskFailed',
      state: 'firing',
      count: 1,
      taskIds: [id],
      links: { dashboard: 'https://ops.example.com/svc-monitoring', tasks: [`https://ops.example.com/svc-monitoring/tasks/${id}`] },
    });
    expect(msg!.json.summary).toMatch(/exploded/);
  });

  it('a storm sends one message per window with a count, then "resolved" once a window passes without failures', async () => {
    const hook = await receiver();
    const h = await engineWith([{ on: 'TaskFailed', windowMs: 600, webhook: { url: hook.url } }]);
    for (let i = 0; i < 8; i++) await h.engine.dispatch('boom', { i });
    await waitFor(() => hook.received.some((r) => r.json.state === 'resolved'), 8000, 'resolved');
    await sleep(800);
    const states = hook.received.map((r) => r.json.state);
    expect(states[0]).toBe('firing');
    expect(states.at(-1)).toBe('resolved');
    // Not one message per failure: the firing messages together count all eight.
    expect(hook.received.length).toBeLessThanOrEqual(4);
    const counted = hook.received.filter((r) => r.json.state === 'firing').reduce((n, r) => n + (r.json.count as number), 0);
    expect(counted).toBe(8);
    expect(hook.received[0]!.headers['x-svc-signature']).toBeUndefined();
  });

  it('retries 5xx with backoff until delivered, and reports a webhook given up in GET /health', async () => {
    const flaky = await receiver((n) => (n < 2 ? 503 : 200));
    const down = await receiver(() => 500);
    const h = await engineWith([
      { on: 'TaskFailed', name: 'flaky', webhook: { url: flaky.url, attempts: 4, backoffMs: 50 } },
      { on: 'TaskFailed', name: 'down', webhook: { url: down.url, attempts: 3, backoffMs: 20 } },
    ]);
    await h.engine.dispatch('boom', {});
    await waitFor(() => flaky.received.length === 3 && down.received.length === 3, 5000, 'attempts');
    // backoff: 50 ms, then 100 ms between attempts, each with jitter down to half of it
    expect(flaky.received[1]!.atMs - flaky.received[0]!.atMs).toBeGreaterThanOrEqual(22);
    expect(flaky.received[2]!.atMs - flaky.received[1]!.atMs).toBeGreaterThanOrEqual(47);
    expect(flaky.received.map((r) => r.body).every((b) => b === flaky.received[0]!.body)).toBe(true);
    let health: { status: string; alerts?: { delivered: number; failed: number; waiting: number; lastFailureUtc?: string } } = { status: '' };
    await waitFor(async () => {
      health = (await (await fetch(`${served!.api}/health`)).json()) as typeof health;
      return health.alerts?.failed === 1 && health.alerts.delivered === 1;
    }, 5000, 'health counts');
    expect(health.status).toBe('ok');
    expect(health.alerts).toEqual({ delivered: 1, failed: 1, waiting: 0, lastFailureUtc: expect.any(String) });
    expect(JSON.stringify(health)).not.toContain('127.0.0.1');
    await sleep(200);
    expect(down.received).toHaveLength(3); // bounded: no fourth attempt
  });

  it('a receiver that hangs never slows the engine: every task ends while the first delivery still hangs', async () => {
    const hang = await receiver(() => 'hang');
    const timeoutMs = 15_000;
    const h = await engineWith([{ on: 'TaskFailed', windowMs: 50, webhook: { url: hang.url, timeoutMs, attempts: 1 } }]);
    const t0 = Date.now();
    for (let i = 0; i < 40; i++) await h.engine.dispatch(i % 2 === 0 ? 'boom' : 'ok', { i });
    await waitFor(() => h.events.filter((e) => e.kind === 'Completed' || e.kind === 'Failed').length === 40, 10_000, 'all ends');
    expect(Date.now() - t0).toBeLessThan(timeoutMs);
    expect(h.events.filter((e) => e.kind === 'Failed')).toHaveLength(20);
    await waitFor(() => hang.received.length === 1, 5000, 'the hanging delivery');
    const body = (await (await fetch(`${served!.api}/health`)).json()) as { status: string; alerts?: { delivered: number; waiting: number } };
    expect(body.status).toBe('ok');
    expect(body.alerts?.delivered).toBe(0);
    expect(body.alerts?.waiting).toBeGreaterThanOrEqual(1);
  });

  it('QueueBacklog fires over its threshold and resolves when the queue drains; Slack and Teams presets', async () => {
    const slack = await receiver();
    const teams = await receiver();
    const h = harness({ pollIntervalMs: 20 });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    h.engine.handle('wait', () => gate);
    await h.engine.start();
    served = await serve(
      { engine: h.engine, storage: h.storage },
      {
        enableAuthentication: false,
        alerts: [
          { on: 'QueueBacklog', name: 'backlog', threshold: 3, windowMs: 200, webhook: { url: slack.url, preset: 'slack' } },
          { on: 'QueueBacklog', name: 'backlog', threshold: 3, windowMs: 200, webhook: { url: teams.url, preset: 'teams' } },
        ],
      },
    );
    for (let i = 0; i < 12; i++) await h.engine.dispatch('wait', { i });
    await waitFor(() => slack.received.length === 1 && teams.received.length === 1, 8000, 'firing');
    expect(slack.received[0]!.json).toEqual({ text: expect.stringMatching(/^🔴 \[firing\] backlog: Queued tasks over 3 in default \(\d+\)/) });
    const card = teams.received[0]!.json as { type: string; attachments: Array<{ contentType: string; content: { type: string; body: Array<{ text: string }> } }> };
    expect(card.type).toBe('message');
    expect(card.attachments[0]!.contentType).toBe('application/vnd.microsoft.card.adaptive');
    expect(card.attachments[0]!.content.type).toBe('AdaptiveCard');
    expect(card.attachments[0]!.content.body[0]!.text).toMatch(/\[firing\] backlog/);
    release();
    await waitFor(() => slack.received.length === 2, 8000, 'resolved');
    expect(slack.received[1]!.json.text).toMatch(/^✅ \[resolved\] backlog/);
  });

  it('ScheduleHalted fires while a durable schedule is halted and resolves when it is resumed (read models, no engine needed)', async () => {
    const hook = await receiver();
    const db = createTempDatabase();
    try {
      const id = insertTask(db.db, { status: 'Pending', is_recurring: 1, occurrence_mode: 'Durable', schedule_version: 1, halt: JSON.stringify({ reason: 'test' }) });
      served = await serve({ storage: { db: db.db } }, { enableAuthentication: false, alerts: [{ on: 'ScheduleHalted', name: 'halts', windowMs: 200, webhook: { url: hook.url } }] });
      await waitFor(() => hook.received.length === 1, 5000, 'firing');
      expect(hook.received[0]!.json).toMatchObject({ rule: 'halts', on: 'ScheduleHalted', state: 'firing', count: 1 });
      db.db.prepare(`UPDATE tasks SET halt = NULL WHERE id = ?`).run(id);
      await waitFor(() => hook.received.length === 2, 5000, 'resolved');
      expect(hook.received[1]!.json).toMatchObject({ state: 'resolved', count: 0 });
    } finally {
      await served?.close();
      served = undefined;
      db.cleanup();
    }
  });

  it('EngineDegraded fires when the engine reports degraded and resolves when it is ok again', async () => {
    const hook = await receiver();
    const h = harness();
    let status: 'ok' | 'degraded' = 'ok';
    // The engine as the monitoring sees it, with its health under the test's control.
    const engine = Object.create(h.engine, { health: { value: () => ({ status, unwrittenChanges: 0, oldestUnwrittenMs: 0 }) } }) as typeof h.engine;
    served = await serve({ engine, storage: h.storage }, { enableAuthentication: false, alerts: [{ on: 'EngineDegraded', windowMs: 200, webhook: { url: hook.url } }] });
    await sleep(1200);
    expect(hook.received).toHaveLength(0);
    status = 'degraded';
    await waitFor(() => hook.received.length === 1, 5000, 'firing');
    expect(hook.received[0]!.json).toMatchObject({ on: 'EngineDegraded', state: 'firing', summary: expect.stringMatching(/degraded/) });
    status = 'ok';
    await waitFor(() => hook.received.length === 2, 5000, 'resolved');
    expect(hook.received[1]!.json.state).toBe('resolved');
  });

  it('refuses bad rules at startup, naming the rule and field', () => {
    const opts = (alerts: unknown) => () => resolveOptions({ alerts: alerts as never, logger: { info: () => {}, warn: () => {} } });
    expect(opts({})).toThrow(/alerts.*must be an array/);
    expect(opts([{ on: 'Nope', webhook: { url: 'http://x' } }])).toThrow(/alerts\[0\]\.on.*TaskFailed/);
    expect(opts([{ on: 'TaskFailed' }])).toThrow(/alerts\[0\]\.webhook\.url.*required/);
    expect(opts([{ on: 'TaskFailed', webhook: { url: 'ftp://x' } }])).toThrow(/alerts\[0\]\.webhook\.url.*http/);
    expect(opts([{ on: 'TaskFailed', webhook: { url: 'http://x', preset: 'discord' } }])).toThrow(/alerts\[0\]\.webhook\.preset/);
    expect(opts([{ on: 'TaskFailed', webhook: { url: 'http://x' }, windowMs: 0 }])).toThrow(/alerts\[0\]\.windowMs/);
    expect(opts([{ on: 'TaskFailed', webhook: { url: 'http://x' }, for: 1000 }])).toThrow(/alerts\[0\]\.for.*level rules only/);
    expect(opts([{ on: 'QueueBacklog', webhook: { url: 'http://x' }, for: -1 }])).toThrow(/alerts\[0\]\.for/);
  });
});
