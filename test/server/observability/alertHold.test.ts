import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, harness, sleep } from '../../fixtures/server/engineHarness.js';
import { waitFor } from '../../fixtures/waitFor.js';
import { serve, type Served } from '../../fixtures/server/servedMonitoring.js';
import { webhookReceiver } from '../../fixtures/server/webhookReceiver.js';

// Level rules look once a second; `for` holds a change of state, `windowMs` spaces the messages.

let served: Served | undefined;
let hook: Awaited<ReturnType<typeof webhookReceiver>> | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
  await hook?.close();
  hook = undefined;
  await closeAll();
});

/** A monitoring whose engine health the test sets; `flap` makes each look see the other state. */
async function degradedRule(rule: Record<string, unknown>) {
  hook = await webhookReceiver();
  const h = harness();
  const control = { status: 'ok' as 'ok' | 'degraded', flap: false };
  const health = () => {
    if (control.flap) control.status = control.status === 'ok' ? 'degraded' : 'ok';
    return { status: control.status, unwrittenChanges: 0, oldestUnwrittenMs: 0 };
  };
  const engine = Object.create(h.engine, { health: { value: health } }) as typeof h.engine;
  served = await serve({ engine, storage: h.storage }, { enableAuthentication: false, alerts: [{ on: 'EngineDegraded', webhook: { url: hook.url }, ...rule }] as never });
  return { control, hook };
}

describe('level alert rules: hold time (for) and one message per window', () => {
  it('a state flapping at every look sends nothing with for; a steady one fires once after for, and resolves after for again', async () => {
    const { control, hook } = await degradedRule({ for: 1500, windowMs: 100 });
    control.flap = true;
    await sleep(4500);
    expect(hook.received).toHaveLength(0);
    control.flap = false;
    control.status = 'degraded';
    const since = Date.now();
    await waitFor(() => hook.received.length === 1, 8000, 'firing');
    expect(Date.now() - since).toBeGreaterThanOrEqual(1400);
    expect(hook.received[0]!.json).toMatchObject({ state: 'firing', on: 'EngineDegraded' });
    // A short return to ok (one look) does not resolve it.
    control.status = 'ok';
    await sleep(900);
    control.status = 'degraded';
    await sleep(2000);
    expect(hook.received).toHaveLength(1);
    control.status = 'ok';
    await waitFor(() => hook.received.length === 2, 8000, 'resolved');
    expect(hook.received[1]!.json.state).toBe('resolved');
  });

  it('without for, a flapping state still sends at most one message per windowMs', async () => {
    const { control, hook } = await degradedRule({ windowMs: 3000 });
    control.flap = true;
    await waitFor(() => hook.received.length >= 1, 5000, 'the first message');
    const first = hook.received[0]!.atMs;
    await sleep(5200);
    control.flap = false;
    const times = hook.received.map((r) => r.atMs - first);
    // At most one message per three seconds of flapping, alternating firing and resolved.
    expect(hook.received.length).toBeLessThanOrEqual(3);
    // (Measured at the receiver: a delivery's own latency shifts each by a little; unwindowed they would be 1 s apart.)
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(2500);
    expect(hook.received.map((r) => r.json.state)).toEqual(['firing', 'resolved', 'firing'].slice(0, hook.received.length));
  });
});
