// @backends sqlite — no store at all (test/fixtures/server/hubServer.ts): the hub transport alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpTransportType } from '@microsoft/signalr';
import type { SvcEvent } from '../../../server/src/contracts/index.js';
import { createHubClient, sampleEvent, signToken, startHubServer, type HubServer } from '../../fixtures/server/hubServer.js';
import { waitFor } from '../../fixtures/waitFor.js';
import { RawClient } from '../../fixtures/server/rawHubClient.js';

describe('hub slow consumer', () => {
  let s: HubServer;
  beforeAll(async () => {
    s = await startHubServer({ maxBufferedBytes: 64 * 1024 });
  });
  afterAll(async () => {
    await s.close();
  });

  it('closes a client over its send buffer with an error while the others receive every event', async () => {
    const token = signToken();
    const fast = createHubClient(s.url, { name: 'ws', transport: HttpTransportType.WebSockets, skipNegotiation: false }, () => token);
    const fastIds: string[] = [];
    fast.on('SvcEvent', (e: SvcEvent) => fastIds.push(e.taskId));
    await fast.start();
    const slow = await RawClient.open(s.wsUrl, token);
    await slow.handshake();
    await waitFor(() => s.hub.connectionCount() === 2, 5_000, 'two connections');
    slow.ws.pause(); // stops reading: kernel buffers fill, then the server's send buffer

    const padding = 'p'.repeat(2_000);
    let emitted = 0;
    // Emit in bursts until the server drops the slow client (kernel socket buffers absorb a few MB first).
    while (s.hub.connectionCount() === 2 && emitted < 60_000) {
      for (let i = 0; i < 20; i++) s.emitter.emit('event', sampleEvent({ taskId: `e${emitted++}`, message: padding }));
      await new Promise((r) => setImmediate(r));
      // let the fast client drain between bursts
      await waitFor(() => fastIds.length >= emitted - 1_000, 10_000, 'fast client to keep up');
    }
    expect(s.hub.connectionCount()).toBe(1);
    // The emitter keeps going and the fast client still gets everything, in order.
    for (let i = 0; i < 100; i++) s.emitter.emit('event', sampleEvent({ taskId: `e${emitted++}` }));
    await waitFor(() => fastIds.length === emitted, 10_000, 'fast client to receive every event');
    expect(fastIds).toEqual(Array.from({ length: emitted }, (_, i) => `e${i}`));

    // The slow client, reading again, finds the Close with the error at the end of its stream.
    slow.ws.resume();
    const close = await slow.next((r) => r.type === 7, 10_000);
    expect(close.error).toMatch(/too slow: its send buffer exceeded 65536 bytes/);
    await slow.waitClosed();
    await fast.stop();
  });

  it('closes a long-polling client that stops polling once its queue exceeds the bound; its last poll gets the Close, then 204', async () => {
    const token = signToken();
    const auth = { Authorization: `Bearer ${token}` };
    const neg = (await (await fetch(`${s.url}/negotiate?negotiateVersion=1`, { method: 'POST', headers: auth })).json()) as {
      connectionToken: string;
    };
    const url = `${s.url}?id=${neg.connectionToken}`;
    await fetch(url, { headers: auth });
    await fetch(url, { method: 'POST', headers: auth, body: '{"protocol":"json","version":1}\u001e' });
    expect(await (await fetch(url, { headers: auth })).text()).toBe('{}\u001e');
    const before = s.hub.connectionCount();
    const padding = 'p'.repeat(2_000);
    for (let i = 0; i < 100 && s.hub.connectionCount() === before; i++) {
      s.emitter.emit('event', sampleEvent({ taskId: `lp${i}`, message: padding }));
      await new Promise((r) => setTimeout(r, 25)); // one broadcast flush each (flushes are >= 20 ms apart)
    }
    expect(s.hub.connectionCount()).toBe(before - 1);
    const last = await fetch(url, { headers: auth });
    expect(last.status).toBe(200);
    const records = (await last.text()).split('\u001e').filter((r) => r !== '').map((r) => JSON.parse(r) as Record<string, unknown>);
    expect(records[0]).toMatchObject({ type: 1, target: 'SvcEvent' });
    expect(records.at(-1)).toEqual({ type: 7, error: 'The client is too slow: its send buffer exceeded 65536 bytes.' });
    expect((await fetch(url, { headers: auth })).status).toBe(204);
  });
});
