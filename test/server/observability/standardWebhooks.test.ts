import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveOptions } from '../../../server/src/monitoring/options.js';
import { closeAll, harness, sleep } from '../../fixtures/server/engineHarness.js';
import { waitFor } from '../../fixtures/waitFor.js';
import { parseSamples, sampleValue, scrape } from '../../fixtures/server/scrape.js';
import { serve, type Served } from '../../fixtures/server/servedMonitoring.js';
import { webhookReceiver, type Received, type Reply } from '../../fixtures/server/webhookReceiver.js';

// Alert webhooks as a receiver written against Standard Webhooks checks them: the `standardwebhooks`
// package's own verifier (an independent implementation) over the exact bytes received.

let served: Served | undefined;
const receivers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await served?.close();
  served = undefined;
  for (const r of receivers.splice(0)) await r.close();
  await closeAll();
});

async function receiver(answer?: (n: number) => Reply) {
  const r = await webhookReceiver(answer);
  receivers.push(r);
  return r;
}

const whsec = () => `whsec_${randomBytes(32).toString('base64')}`;
/** The headers as the verifier takes them (Node gives single values as strings). */
const headersOf = (r: Received) => r.headers as Record<string, string>;

/** An engine whose `boom` tasks fail at once with a message of non-ASCII text, served with `alerts`. */
async function failingEngine(alerts: unknown[], logged: string[] = []) {
  const h = harness({ pollIntervalMs: 20 });
  h.engine.handle('boom', async () => {
    throw new Error('Zoë’s café ☕ exploded');
  });
  await h.engine.start();
  served = await serve(
    { engine: h.engine, storage: h.storage },
    { enableAuthentication: false, alerts: alerts as never, logger: { info: () => undefined, warn: (m) => logged.push(m) } },
  );
  return h;
}

describe('alert webhooks per Standard Webhooks', () => {
  it('Slack and Teams messages with an emoji and accented names verify with every secret of a rotation, and with none else', async () => {
    const slack = await receiver();
    const teams = await receiver();
    const [newest, older] = [whsec(), whsec()];
    const name = 'Tâches échouées — José 🚨';
    const h = await failingEngine([
      { on: 'TaskFailed', name, webhook: { url: slack.url, preset: 'slack', secret: [newest, older] } },
      { on: 'TaskFailed', name, webhook: { url: teams.url, preset: 'teams', secret: newest } },
    ]);
    await h.engine.dispatch('boom', {});
    await waitFor(() => slack.received.length === 1 && teams.received.length === 1, 5000, 'both messages');

    const [s] = slack.received;
    expect(s!.body).toContain('José 🚨');
    expect(s!.body).toContain('☕');
    expect(s!.headers['webhook-id']).toMatch(/^msg_/);
    expect(Math.abs(Number(s!.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
    expect(String(s!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    // Each secret of the rotation verifies alone (a receiver holding either one accepts).
    for (const secret of [newest, older]) expect(new Webhook(secret).verify(s!.body, headersOf(s!))).toEqual(s!.json);
    expect(() => new Webhook(whsec()).verify(s!.body, headersOf(s!))).toThrow(/signature/i);
    // The bytes matter: the same text re-encoded differently does not verify.
    expect(() => new Webhook(newest).verify(s!.body.normalize('NFD'), headersOf(s!))).toThrow();

    const [t] = teams.received;
    expect(new Webhook(newest).verify(t!.body, headersOf(t!))).toMatchObject({ type: 'message' });
    expect(t!.body).toContain('Tâches échouées');
    expect(() => new Webhook(older).verify(t!.body, headersOf(t!))).toThrow();
  });

  it('a plain-text secret signs with its own bytes (a raw key) and still signs X-Svc-Signature; unsigned rules send id and timestamp only', async () => {
    const signed = await receiver();
    const plain = await receiver();
    const h = await failingEngine([
      { on: 'TaskFailed', webhook: { url: signed.url, secret: 'légacy-sécret' } },
      { on: 'TaskFailed', webhook: { url: plain.url } },
    ]);
    await h.engine.dispatch('boom', {});
    await waitFor(() => signed.received.length === 1 && plain.received.length === 1, 5000, 'both messages');
    const [m] = signed.received;
    const raw = new Webhook(Buffer.from('légacy-sécret', 'utf8').toString('base64'));
    expect(raw.verify(m!.body, headersOf(m!))).toEqual(m!.json);
    expect(m!.headers['x-svc-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    const [u] = plain.received;
    expect(u!.headers['webhook-id']).toMatch(/^msg_/);
    expect(u!.headers['webhook-timestamp']).toMatch(/^\d+$/);
    expect(u!.headers['webhook-signature']).toBeUndefined();
    expect(u!.headers['x-svc-signature']).toBeUndefined();
  });

  it('retries keep the message id, re-sign with a new timestamp, and wait as Retry-After asks', async () => {
    const secret = whsec();
    const busy = await receiver((n) => (n === 0 ? { status: 429, headers: { 'retry-after': '2' } } : n === 1 ? { status: 503, headers: { 'retry-after': new Date(Date.now() + 2000).toUTCString() } } : 200));
    const h = await failingEngine([{ on: 'TaskFailed', webhook: { url: busy.url, secret, attempts: 3, backoffMs: 10 } }]);
    await h.engine.dispatch('boom', {});
    await waitFor(() => busy.received.length === 3, 10_000, 'three attempts');
    const [a, b, c] = busy.received;
    expect(new Set([a, b, c].map((r) => r!.headers['webhook-id'])).size).toBe(1);
    // Retry-After: 2 (seconds), far above the 10 ms backoff.
    expect(b!.atMs - a!.atMs).toBeGreaterThanOrEqual(1900);
    expect(Number(b!.headers['webhook-timestamp'])).toBeGreaterThan(Number(a!.headers['webhook-timestamp']));
    // An HTTP-date Retry-After about two seconds ahead (whole seconds: at least one).
    expect(c!.atMs - b!.atMs).toBeGreaterThanOrEqual(900);
    for (const r of [a, b, c]) expect(new Webhook(secret).verify(r!.body, headersOf(r!))).toEqual(a!.json);
  });

  it('the backoff doubles up to maxBackoffMs with jitter; a Retry-After beyond the cap waits the cap', async () => {
    const down = await receiver((n) => (n === 0 ? { status: 503, headers: { 'retry-after': '3600' } } : 500));
    const h = await failingEngine([{ on: 'TaskFailed', webhook: { url: down.url, attempts: 6, backoffMs: 100, maxBackoffMs: 300 } }]);
    await h.engine.dispatch('boom', {});
    await waitFor(() => down.received.length === 6, 10_000, 'six attempts');
    const gaps = down.received.slice(1).map((r, i) => r.atMs - down.received[i]!.atMs);
    // Wanted waits: the cap (Retry-After 1 h asked), then 100·2^(n-1) capped at 300, each between half and all of it.
    const wanted = [300, 200, 300, 300, 300];
    gaps.forEach((gap, i) => {
      expect(gap).toBeGreaterThanOrEqual(wanted[i]! / 2 - 5);
      expect(gap).toBeLessThan(wanted[i]! + 1500); // a loaded machine adds latency; an uncapped wait would be an hour
    });
    expect(gaps[0]).toBeGreaterThanOrEqual(295);
  });

  it('failures are logged by rule name (never the address) and counted in svc_alert_deliveries_total by result', async () => {
    const ok = await receiver();
    const refuses = await receiver(() => 400);
    const flaky = await receiver((n) => (n === 0 ? 500 : 200));
    const logged: string[] = [];
    const h = await failingEngine(
      [
        { on: 'TaskFailed', name: 'ok', webhook: { url: ok.url } },
        { on: 'TaskFailed', name: 'refused', webhook: { url: `${refuses.url}?token=hook-credential-123` } },
        { on: 'TaskFailed', name: 'flaky', webhook: { url: flaky.url, backoffMs: 10 } },
      ],
      logged,
    );
    const before = parseSamples((await scrape(served!)).text);
    for (const result of ['delivered', 'retried', 'failed', 'dropped']) expect(sampleValue(before, 'svc_alert_deliveries_total', { result })).toBe(0);
    await h.engine.dispatch('boom', {});
    await waitFor(() => ok.received.length === 1 && refuses.received.length === 1 && flaky.received.length === 2, 5000, 'deliveries');
    await waitFor(async () => sampleValue(parseSamples((await scrape(served!)).text), 'svc_alert_deliveries_total', { result: 'delivered' }) === 2, 5000, 'counted');
    const after = parseSamples((await scrape(served!)).text);
    expect(sampleValue(after, 'svc_alert_deliveries_total', { result: 'retried' })).toBe(1);
    expect(sampleValue(after, 'svc_alert_deliveries_total', { result: 'failed' })).toBe(1);
    expect(sampleValue(after, 'svc_alert_deliveries_total', { result: 'dropped' })).toBe(0);
    await sleep(100);
    expect(refuses.received).toHaveLength(1); // a 400 is not retried
    expect(logged).toEqual([expect.stringMatching(/alert "refused" not delivered: gave up on message msg_\S+ after HTTP 400/)]);
    expect(logged.join('\n')).not.toContain('hook-credential-123');
  });

  it('refuses a malformed whsec_ secret or an empty rotation at startup, naming the field', () => {
    const opts = (secret: unknown) => () =>
      resolveOptions({ alerts: [{ on: 'TaskFailed', webhook: { url: 'http://x', secret } }] as never, logger: { info: () => {}, warn: () => {} } });
    expect(opts('whsec_not base64!')).toThrow(/alerts\[0\]\.webhook\.secret.*base64 of 24 to 64/);
    expect(opts(`whsec_${randomBytes(8).toString('base64')}`)).toThrow(/alerts\[0\]\.webhook\.secret/);
    expect(opts([])).toThrow(/alerts\[0\]\.webhook\.secret.*non-empty/);
    expect(opts([whsec(), 5])).toThrow(/alerts\[0\]\.webhook\.secret/);
    expect(opts([whsec(), 'plain'])).not.toThrow();
  });
});
