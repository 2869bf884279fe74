// @backends sqlite — no store at all (test/fixtures/server/hubServer.ts): the hub transport alone.
import type { IncomingMessage, Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHub } from '../../../server/src/hub/createHub.js';
import { HUB_PATH, jwtAccess, sampleEvent, shortLivedToken, signToken, startHubServer, type HubServer } from '../../fixtures/server/hubServer.js';
import { waitFor } from '../../fixtures/waitFor.js';
import { RawClient, upgradeStatus } from '../../fixtures/server/rawHubClient.js';

const RS = '\u001e';

/**
 * Resolves once the server has received (and, the hub's request handling being synchronous,
 * handled) a request of this method for this connection token: the ordering of two requests
 * comes from the server's own event, not from a sleep.
 */
function requestArrived(server: Server, method: string, connectionToken: string): Promise<void> {
  return new Promise((resolve) => {
    const seen = (req: IncomingMessage) => {
      if (req.method !== method || !(req.url ?? '').includes(`id=${encodeURIComponent(connectionToken)}`)) return;
      server.off('request', seen);
      setImmediate(resolve);
    };
    server.on('request', seen);
  });
}

describe('hub raw protocol (ws and fetch)', () => {
  // `s` keeps the default keep-alive and timeouts: no ping, client timeout or poll timeout can
  // interleave with the frames a test expects, however slowly a loaded machine runs it. `timed`
  // has short ones, for the tests of those timers alone.
  let s: HubServer;
  let timed: HubServer;
  const token = signToken();
  const auth = { Authorization: `Bearer ${token}` };
  beforeAll(async () => {
    s = await startHubServer();
    timed = await startHubServer({ keepAliveIntervalMs: 100, clientTimeoutMs: 600, longPollTimeoutMs: 300 });
  });
  afterAll(async () => {
    await s.close();
    await timed.close();
  });

  it('negotiate v1 returns connectionId, a separate connectionToken and three Text transports', async () => {
    const res = await fetch(`${s.url}/negotiate?negotiateVersion=1`, { method: 'POST', headers: auth });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.negotiateVersion).toBe(1);
    expect(typeof body.connectionId).toBe('string');
    expect(typeof body.connectionToken).toBe('string');
    expect(body.connectionToken).not.toBe(body.connectionId);
    expect(body.availableTransports).toEqual([
      { transport: 'WebSockets', transferFormats: ['Text'] },
      { transport: 'ServerSentEvents', transferFormats: ['Text'] },
      { transport: 'LongPolling', transferFormats: ['Text'] },
    ]);
  });

  it('negotiate v0 returns only a connectionId, usable as the id', async () => {
    const res = await fetch(`${s.url}/negotiate`, { method: 'POST', headers: auth });
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.negotiateVersion).toBe(0);
    expect(body).not.toHaveProperty('connectionToken');
    const c = await RawClient.open(`${s.wsUrl}?id=${String(body.connectionId)}`, token);
    await c.handshake();
    c.ws.close();
  });

  it('refuses without a token (401 + WWW-Authenticate: Bearer) and on a 403 decision, over HTTP and upgrade', async () => {
    const noToken = await fetch(`${s.url}/negotiate?negotiateVersion=1`, { method: 'POST' });
    expect(noToken.status).toBe(401);
    expect(noToken.headers.get('www-authenticate')).toBe('Bearer');
    expect(((await noToken.json()) as { status: number }).status).toBe(401);
    const badSig = await fetch(`${s.url}/negotiate`, { method: 'POST', headers: { Authorization: 'Bearer abc.def.ghi' } });
    expect(badSig.status).toBe(401);
    const blocked = signToken({ blocked: true });
    const forbidden = await fetch(`${s.url}/negotiate?access_token=${blocked}`, { method: 'POST' });
    expect(forbidden.status).toBe(403);
    expect(await upgradeStatus(s.wsUrl)).toBe(401);
    expect(await upgradeStatus(`${s.wsUrl}?access_token=${blocked}`)).toBe(403);
    // the access_token query parameter is accepted (browsers' WebSockets and SSE)
    const viaQuery = await RawClient.open(`${s.wsUrl}?access_token=${token}`);
    await viaQuery.handshake();
    viaQuery.ws.close();
  });

  it('answers a malformed handshake with a handshake error, then closes', async () => {
    const c = await RawClient.open(s.wsUrl, token);
    c.send(`{"protocol":"json",${RS}`);
    const answer = await c.next();
    expect(answer.error).toMatch(/not valid JSON/);
    await c.waitClosed();
  });

  it('answers an unknown protocol or version with a handshake error, then closes', async () => {
    const c = await RawClient.open(s.wsUrl, token);
    c.send(`{"protocol":"messagepack","version":1}${RS}`);
    expect((await c.next()).error).toBe("The protocol 'messagepack' is not supported.");
    await c.waitClosed();
    const v2 = await RawClient.open(s.wsUrl, token);
    v2.send(`{"protocol":"json","version":2}${RS}`);
    expect((await v2.next()).error).toMatch(/version 2/);
    await v2.waitClosed();
  });

  it('closes with an error on malformed JSON after the handshake', async () => {
    const c = await RawClient.open(s.wsUrl, token);
    await c.handshake();
    c.send(`{"type":1,${RS}`);
    const close = await c.next((r) => r.type === 7);
    expect(close.error).toMatch(/not valid JSON/);
    expect(close).not.toHaveProperty('allowReconnect');
    await c.waitClosed();
  });

  it('closes with an error when a client message exceeds 32 KiB', async () => {
    const c = await RawClient.open(s.wsUrl, token);
    await c.handshake();
    const big = JSON.stringify({ type: 1, target: 'X', arguments: ['x'.repeat(33 * 1024)] });
    c.send(big + RS);
    const close = await c.next((r) => r.type === 7);
    expect(close.error).toBe('The message exceeds the maximum message size of 32768 bytes.');
    await c.waitClosed();
  });

  it('accepts a message just under the limit', async () => {
    const c = await RawClient.open(s.wsUrl, token);
    await c.handshake();
    const ok = JSON.stringify({ type: 1, invocationId: '9', target: 'X', arguments: ['x'.repeat(30 * 1024)] });
    c.send(ok + RS);
    expect((await c.next((r) => r.type === 3)).invocationId).toBe('9');
    c.ws.close();
  });

  it('answers 404 for an unknown connection id on every transport and verb', async () => {
    expect(await upgradeStatus(`${s.wsUrl}?id=unknown`, auth)).toBe(404);
    expect((await fetch(`${s.url}?id=unknown`, { headers: auth })).status).toBe(404);
    expect((await fetch(`${s.url}?id=unknown`, { headers: { ...auth, Accept: 'text/event-stream' } })).status).toBe(404);
    expect((await fetch(`${s.url}?id=unknown`, { method: 'POST', headers: auth, body: '{}' })).status).toBe(404);
    expect((await fetch(`${s.url}?id=unknown`, { method: 'DELETE', headers: auth })).status).toBe(404);
  });

  it('answers an invocation of an unknown method with a completion error only when it has an invocationId', async () => {
    const c = await RawClient.open(s.wsUrl, token);
    await c.handshake();
    c.send(`{"type":1,"target":"Nope","arguments":[]}${RS}{"type":1,"invocationId":"42","target":"Nope","arguments":[]}${RS}`);
    const completion = await c.next((r) => r.type === 3);
    expect(completion).toEqual({ type: 3, invocationId: '42', error: 'Method does not exist' });
    c.ws.close();
  });

  it('pings every keepAliveIntervalMs and closes a silent client after clientTimeoutMs', async () => {
    const c = await RawClient.open(timed.wsUrl, token);
    await c.handshake();
    const ping = await c.next();
    expect(ping).toEqual({ type: 6 });
    const close = await c.next((r) => r.type === 7, 3_000);
    expect(close.error).toBe('Server timeout elapsed without receiving a message from the client.');
    await c.waitClosed();
  });

  it('keeps a client that pings', async () => {
    const c = await RawClient.open(timed.wsUrl, token);
    await c.handshake();
    const timer = setInterval(() => c.send(`{"type":6}${RS}`), 100);
    // Twelve server keep-alives (every 100 ms) span twice the 600 ms client timeout.
    await waitFor(() => c.closed || c.records.filter((r) => (r as { type?: number }).type === 6).length >= 12, 5_000, 'twelve keep-alive pings');
    clearInterval(timer);
    expect(c.closed).toBe(false);
    expect(c.records.some((r) => (r as { type?: number }).type === 7)).toBe(false);
    c.ws.close();
  });

  it('long polling: first poll 200, handshake by POST, events by poll, DELETE 202, then poll 204', async () => {
    const neg = (await (await fetch(`${s.url}/negotiate?negotiateVersion=1`, { method: 'POST', headers: auth })).json()) as {
      connectionToken: string;
    };
    const url = `${s.url}?id=${neg.connectionToken}`;
    const first = await fetch(url, { headers: auth });
    expect(first.status).toBe(200);
    expect(await first.text()).toBe('');
    const sent = await fetch(url, { method: 'POST', headers: auth, body: `{"protocol":"json","version":1}${RS}` });
    expect(sent.status).toBe(200);
    expect(await (await fetch(url, { headers: auth })).text()).toBe(`{}${RS}`);
    const pollArrived = requestArrived(s.server, 'GET', neg.connectionToken);
    const poll = fetch(url, { headers: auth });
    await pollArrived;
    s.hub.broadcast(sampleEvent({ taskId: 'lp-1' }));
    const polled = await poll;
    expect(polled.status).toBe(200);
    const record = JSON.parse((await polled.text()).split(RS)[0]) as { type: number; target: string; arguments: { taskId: string }[] };
    expect(record.type).toBe(1);
    expect(record.target).toBe('SvcEvent');
    expect(record.arguments[0].taskId).toBe('lp-1');
    expect((await fetch(url, { method: 'DELETE', headers: auth })).status).toBe(202);
    expect((await fetch(url, { headers: auth })).status).toBe(204);
    expect((await fetch(url, { method: 'DELETE', headers: auth })).status).toBe(404);
  });

  it('long polling: a new poll while one is outstanding ends the older one with 204', async () => {
    const neg = (await (await fetch(`${s.url}/negotiate?negotiateVersion=1`, { method: 'POST', headers: auth })).json()) as {
      connectionToken: string;
    };
    const url = `${s.url}?id=${neg.connectionToken}`;
    await fetch(url, { headers: auth });
    const olderArrived = requestArrived(s.server, 'GET', neg.connectionToken);
    const older = fetch(url, { headers: auth });
    await olderArrived;
    const newer = fetch(url, { headers: auth });
    expect((await older).status).toBe(204);
    // the newer poll is the pending one: it carries the handshake answer
    await fetch(url, { method: 'POST', headers: auth, body: `{"protocol":"json","version":1}${RS}` });
    const answered = await newer;
    expect(answered.status).toBe(200);
    expect(await answered.text()).toBe(`{}${RS}`);
    await fetch(url, { method: 'DELETE', headers: auth });
  });

  it('long polling: an idle poll ends with 200 and an empty body after longPollTimeoutMs', async () => {
    const neg = (await (await fetch(`${timed.url}/negotiate?negotiateVersion=1`, { method: 'POST', headers: auth })).json()) as {
      connectionToken: string;
    };
    const url = `${timed.url}?id=${neg.connectionToken}`;
    await fetch(url, { headers: auth });
    const res = await fetch(url, { headers: auth });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
    await fetch(url, { method: 'DELETE', headers: auth });
  });

  it('long polling: a poll arriving after the token expired still gets Close "Token expired", then 204', async () => {
    const own = await startHubServer({ keepAliveIntervalMs: 100, clientTimeoutMs: 10_000 });
    // Lifetime enough for the four requests below on a loaded machine, before it ends.
    const shortLived = shortLivedToken(4);
    const h = { Authorization: `Bearer ${shortLived}` };
    const neg = (await (await fetch(`${own.url}/negotiate?negotiateVersion=1`, { method: 'POST', headers: h })).json()) as {
      connectionToken: string;
    };
    const url = `${own.url}?id=${neg.connectionToken}`;
    await fetch(url, { headers: h });
    await fetch(url, { method: 'POST', headers: h, body: `{"protocol":"json","version":1}${RS}` });
    // the handshake answer, and the keep-alive pings of however long that took
    expect((await (await fetch(url, { headers: h })).text()).split(RS)[0]).toBe('{}');
    expect(own.hub.connectionCount()).toBe(1);
    // no poll pending while the token expires (keep-alive pings are queued meanwhile): the
    // server drops the connection at the token's exp
    await waitFor(() => own.hub.connectionCount() === 0, 10_000, 'the connection to end at the token expiry');
    const res = await fetch(url, { headers: h });
    expect(res.status).toBe(200);
    const records = (await res.text()).split(RS).filter((r) => r !== '').map((r) => JSON.parse(r) as unknown);
    expect(records.at(-1)).toEqual({ type: 7, error: 'Token expired', allowReconnect: true });
    expect((await fetch(url, { headers: h })).status).toBe(204);
    // a new request with that expired token is refused
    expect((await fetch(`${own.url}/negotiate?negotiateVersion=1`, { method: 'POST', headers: h })).status).toBe(401);
    await own.close();
  });

  it('drops a negotiated connection that never connects within clientTimeoutMs', async () => {
    const neg = (await (await fetch(`${timed.url}/negotiate?negotiateVersion=1`, { method: 'POST', headers: auth })).json()) as {
      connectionToken: string;
    };
    await new Promise((r) => setTimeout(r, 900));
    expect(await upgradeStatus(`${timed.wsUrl}?id=${neg.connectionToken}`, auth)).toBe(404);
  });

  it('server-sent events: data: framing of the handshake answer and of events', async () => {
    const neg = (await (await fetch(`${s.url}/negotiate?negotiateVersion=1`, { method: 'POST', headers: auth })).json()) as {
      connectionToken: string;
    };
    const url = `${s.url}?id=${neg.connectionToken}`;
    const stream = await fetch(`${url}&access_token=${token}`, { headers: { Accept: 'text/event-stream' } });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toBe('text/event-stream');
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    await fetch(url, { method: 'POST', headers: auth, body: `{"protocol":"json","version":1}${RS}` });
    let text = '';
    const decoder = new TextDecoder();
    while (!text.includes('\n\n')) text += decoder.decode((await reader.read()).value);
    expect(text).toBe(`data: {}${RS}\n\n`);
    s.hub.broadcast(sampleEvent({ taskId: 'sse-1' }));
    text = '';
    while (!text.endsWith('\n\n')) text += decoder.decode((await reader.read()).value);
    expect(text.startsWith('data: {"type":1,"target":"SvcEvent","arguments":[{"kind":"Failed","taskId":"sse-1"')).toBe(true);
    expect(text.endsWith(`${RS}\n\n`)).toBe(true);
    // a second stream for the same connection is refused
    expect((await fetch(url, { headers: { ...auth, Accept: 'text/event-stream' } })).status).toBe(409);
    await reader.cancel();
  });

  it('refuses POST on a WebSocket connection (405), transport changes (400) and a second WebSocket (409)', async () => {
    const neg = (await (await fetch(`${s.url}/negotiate?negotiateVersion=1`, { method: 'POST', headers: auth })).json()) as {
      connectionToken: string;
    };
    const c = await RawClient.open(`${s.wsUrl}?id=${neg.connectionToken}`, token);
    await c.handshake();
    expect((await fetch(`${s.url}?id=${neg.connectionToken}`, { method: 'POST', headers: auth, body: '{"type":6}' })).status).toBe(405);
    expect((await fetch(`${s.url}?id=${neg.connectionToken}`, { headers: auth })).status).toBe(400);
    expect(await upgradeStatus(`${s.wsUrl}?id=${neg.connectionToken}`, auth)).toBe(409);
    c.ws.close();
  });

  it('hub.close() sends Close with allowReconnect to every client', async () => {
    const own = await startHubServer();
    const c = await RawClient.open(own.wsUrl, token);
    await c.handshake();
    await own.close();
    expect(await c.next((r) => r.type === 7)).toEqual({ type: 7, allowReconnect: true });
    await c.waitClosed();
  });

  it('keeps executionLogs with includeExecutionLogs (their null fields omitted too)', async () => {
    const own = await startHubServer({ includeExecutionLogs: true });
    const c = await RawClient.open(own.wsUrl, token);
    await c.handshake();
    const logs = [
      { id: 1, taskId: 't1', timestampUtc: '2026-11-23T01:00:00.000Z', level: 'Error', message: 'boom', exceptionDetails: 'Error: boom', sequenceNumber: 1 },
      { id: 2, taskId: 't1', timestampUtc: '2026-11-23T01:00:01.000Z', level: 'Information', message: 'retrying', exceptionDetails: null, sequenceNumber: 2 },
    ];
    own.emitter.emit('event', { ...sampleEvent({ taskId: 't1' }), executionLogs: logs });
    const invocation = await c.next((r) => r.type === 1);
    const [arg] = invocation.arguments as Record<string, unknown>[];
    expect(arg.executionLogs).toEqual([logs[0], { id: 2, taskId: 't1', timestampUtc: '2026-11-23T01:00:01.000Z', level: 'Information', message: 'retrying', sequenceNumber: 2 }]);
    await own.close();
  });

  it('fails at creation naming a bad option', () => {
    expect(() => createHub({ path: 'hub', access: jwtAccess })).toThrow(/createHub: option "path"/);
    expect(() => createHub({ path: HUB_PATH, access: jwtAccess, maxBufferedBytes: -1 })).toThrow(/createHub: option "maxBufferedBytes"/);
    expect(() => createHub({ path: HUB_PATH, access: jwtAccess, slowClientGraceMs: 0 })).toThrow(/createHub: option "slowClientGraceMs"/);
    expect(() => createHub({ path: HUB_PATH, access: jwtAccess, keepAliveIntervalMs: 30_000 })).toThrow(/createHub: option "clientTimeoutMs"/);
  });
});
