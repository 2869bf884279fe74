// @backends sqlite — no store at all (test/fixtures/server/hubServer.ts): the hub transport alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpTransportType, type HubConnection } from '@microsoft/signalr';
import type { SvcEvent } from '../../../server/src/contracts/index.js';
import { createHubClient, sampleEvent, signToken, startHubServer, type HubServer } from '../../fixtures/server/hubServer.js';
import { waitFor } from '../../fixtures/waitFor.js';
import { RawClient } from '../../fixtures/server/rawHubClient.js';

/** A real client on WebSockets collecting the task ids of the events it receives, in order. */
async function fastClient(s: HubServer, token: string): Promise<{ client: HubConnection; ids: string[] }> {
  const client = createHubClient(s.url, { name: 'ws', transport: HttpTransportType.WebSockets, skipNegotiation: false }, () => token);
  const ids: string[] = [];
  client.on('SvcEvent', (e: SvcEvent) => ids.push(e.taskId));
  await client.start();
  return { client, ids };
}

/** Emits `count` events of about `bytes` bytes each in bursts, letting the fast client drain between them; stops early when `until` holds. */
async function emitBursts(s: HubServer, fastIds: string[], count: number, bytes: number, until: () => boolean = () => false): Promise<number> {
  const padding = 'p'.repeat(bytes);
  let emitted = 0;
  while (emitted < count && !until()) {
    for (let i = 0; i < 20 && emitted < count; i++) s.emitter.emit('event', sampleEvent({ taskId: `e${emitted++}`, message: padding }));
    await new Promise((r) => setImmediate(r));
    await waitFor(() => fastIds.length >= emitted - 1_000, 10_000, 'fast client to keep up');
  }
  return emitted;
}

const ids = (n: number) => Array.from({ length: n }, (_, i) => `e${i}`);

describe('hub slow consumer', () => {
  let s: HubServer;
  /** Slow-client closes counted so far by the shared hub. */
  let slowCloses = 0;
  beforeAll(async () => {
    s = await startHubServer({ maxBufferedBytes: 64 * 1024 });
  });
  afterAll(async () => {
    await s.close();
  });

  it('closes a client at once when a write would take its send buffer over maxBufferedBytes, while the others receive every event', async () => {
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
    // Counted as a slow-client close (svc_hub_slow_client_closes_total reads this).
    const closesBefore = slowCloses;
    expect(s.hub.stats().slowClientCloses).toBe(closesBefore + 1);
    slowCloses = s.hub.stats().slowClientCloses;
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

describe('hub slow consumer: a client behind gets time to catch up', () => {
  it('with the default bounds, a client that stops reading while several MB go out keeps its connection and then gets every event', async () => {
    const s = await startHubServer();
    try {
      const token = signToken();
      const fast = await fastClient(s, token);
      const behind = await RawClient.open(s.wsUrl, token);
      await behind.handshake();
      await waitFor(() => s.hub.connectionCount() === 2, 5_000, 'two connections');
      behind.ws.pause();
      // ~9 MB: past what the kernel's socket buffers take (3-4 MB here), so the hub holds several
      // MB for this client, over the 1 MiB slow-client bound but for less than its 10 s grace.
      const emitted = await emitBursts(s, fast.ids, 4_000, 2_000);
      await waitFor(() => fast.ids.length === emitted, 10_000, 'fast client to receive every event');
      expect(s.hub.connectionCount()).toBe(2);

      behind.ws.resume();
      for (let i = 0; i < emitted; i++) expect((await behind.next((r) => r.type === 1 || r.type === 7, 10_000)).arguments).toMatchObject([{ taskId: `e${i}` }]);
      // Caught up, it stays: the next event reaches both.
      s.emitter.emit('event', sampleEvent({ taskId: 'after' }));
      expect((await behind.next((r) => r.type === 1 || r.type === 7)).arguments).toMatchObject([{ taskId: 'after' }]);
      await waitFor(() => fast.ids.at(-1) === 'after', 5_000, 'fast client to get the last event');
      expect(fast.ids).toEqual([...ids(emitted), 'after']);
      expect(s.hub.connectionCount()).toBe(2);
      await fast.client.stop();
    } finally {
      await s.close();
    }
  });

  it('closes a client whose send buffer stays over slowClientBufferedBytes for slowClientGraceMs, while the others receive every event', async () => {
    // The hard bound out of reach: only the grace can close it.
    const s = await startHubServer({ slowClientBufferedBytes: 64 * 1024, slowClientGraceMs: 500, maxBufferedBytes: 1024 ** 3 });
    try {
      const token = signToken();
      const fast = await fastClient(s, token);
      const stuck = await RawClient.open(s.wsUrl, token);
      await stuck.handshake();
      await waitFor(() => s.hub.connectionCount() === 2, 5_000, 'two connections');
      stuck.ws.pause();
      let emitted = await emitBursts(s, fast.ids, 60_000, 2_000, () => s.hub.connectionCount() < 2);
      expect(s.hub.connectionCount()).toBe(1);
      for (let i = 0; i < 100; i++) s.emitter.emit('event', sampleEvent({ taskId: `e${emitted++}` }));
      await waitFor(() => fast.ids.length === emitted, 10_000, 'fast client to receive every event');
      expect(fast.ids).toEqual(ids(emitted));

      // Reading again, the stuck client finds the Close with the reason at the end of its stream.
      stuck.ws.resume();
      const close = await stuck.next((r) => r.type === 7, 10_000);
      expect(close.error).toBe('The client is too slow: its send buffer stayed over 65536 bytes for 500 ms.');
      await stuck.waitClosed();
      await fast.client.stop();
    } finally {
      await s.close();
    }
  });
});
