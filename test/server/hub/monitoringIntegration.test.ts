import { EventEmitter } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HubConnectionBuilder, HttpTransportType, LogLevel } from '@microsoft/signalr';
import type { LoginResponse, SvcEvent } from '../../../server/src/contracts/index.js';
import { createMonitoring, type Monitoring } from '../../../server/src/monitoring/createMonitoring.js';
import type { MonitoringOptions } from '../../../server/src/monitoring/options.js';
import { openMonitoredStore } from '../../fixtures/server/monitoredStore.js';
import { collectEvents, sampleEvent } from '../../fixtures/server/hubServer.js';
import { upgradeRefusal, upgradeStatus } from '../../fixtures/server/rawHubClient.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** The hub as the monitoring wires it: JWT from /auth/login, IP allow-list, one app and server. */
async function startMonitoring(options: MonitoringOptions) {
  const t = openMonitoredStore();
  // An EventEmitter standing in for the engine's event source (schedule operations unused here).
  const engine = Object.assign(new EventEmitter(), {
    schedules: {
      requeue: () => Promise.reject(new Error('unused')),
      resume: () => Promise.reject(new Error('unused')),
      cancel: () => Promise.reject(new Error('unused')),
    },
  });
  const { storage } = await t.source();
  const monitoring: Monitoring = createMonitoring({ engine, storage }, { jwtSecret: 'integration-secret-0123456789abcdef', logger: quiet, ...options } as MonitoringOptions);
  await monitoring.ready;
  const app = express();
  app.use(monitoring.router);
  const server: Server = createServer(app);
  monitoring.attach(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/svc-monitoring`;
  return {
    engine,
    base,
    hubUrl: `${base}/hub`,
    async login(username = 'admin', password = 'admin'): Promise<LoginResponse> {
      const res = await fetch(`${base}/api/auth/login`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ username, password }),
      });
      expect(res.status).toBe(200);
      return (await res.json()) as LoginResponse;
    },
    async close() {
      await monitoring.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await t.destroy();
    },
  };
}

describe('hub wired by createMonitoring (JWT from /auth/login, IP allow-list)', () => {
  let m: Awaited<ReturnType<typeof startMonitoring>>;
  beforeAll(async () => {
    m = await startMonitoring({ allowedIpAddresses: ['127.0.0.1'], trustForwardedFor: true });
  });
  afterAll(async () => {
    await m.close();
  });

  it.each([HttpTransportType.WebSockets, HttpTransportType.ServerSentEvents, HttpTransportType.LongPolling])(
    'a client with the login token receives engine events (transport %s)',
    async (transport) => {
      const { token } = await m.login();
      const client = new HubConnectionBuilder()
        .withUrl(m.hubUrl, { transport, accessTokenFactory: () => token })
        .configureLogging(LogLevel.None)
        .build();
      const received = collectEvents(client, 1);
      await client.start();
      const event: SvcEvent = sampleEvent({ taskId: `via-monitoring-${transport}` });
      m.engine.emit('event', event);
      expect((await received)[0]).toEqual(event);
      await client.stop();
    },
  );

  it('refuses negotiate and upgrade without a token (401) and with a forged token (401)', async () => {
    const res = await fetch(`${m.hubUrl}/negotiate?negotiateVersion=1`, { method: 'POST' });
    expect(res.status).toBe(401);
    expect(await upgradeStatus(m.hubUrl.replace('http', 'ws'))).toBe(401);
    const forged = await fetch(`${m.hubUrl}/negotiate?negotiateVersion=1`, { method: 'POST', headers: { Authorization: 'Bearer a.b.c' } });
    expect(forged.status).toBe(401);
  });

  it('answers a 401 from the hub, its upgrade and the API in one problem-details shape', async () => {
    const api = await fetch(`${m.base}/api/tasks?page=1`);
    const hub = await fetch(`${m.hubUrl}/negotiate?negotiateVersion=1`, { method: 'POST' });
    const upgrade = await upgradeRefusal(`${m.hubUrl.replace('http', 'ws')}?id=x`);
    const unauthorized = {
      type: 'https://www.rfc-editor.org/rfc/rfc9110#section-15.5.2',
      title: 'Unauthorized',
      status: 401,
      detail: expect.any(String) as string,
    };
    expect(api.status).toBe(401);
    expect(hub.status).toBe(401);
    expect(upgrade.status).toBe(401);
    for (const contentType of [api.headers.get('content-type'), hub.headers.get('content-type'), upgrade.headers['content-type']]) {
      expect(contentType).toBe('application/problem+json; charset=utf-8');
    }
    expect(await api.json()).toEqual({ ...unauthorized, instance: '/svc-monitoring/api/tasks' });
    expect(await hub.json()).toEqual({ ...unauthorized, instance: '/svc-monitoring/hub/negotiate' });
    expect(JSON.parse(upgrade.body)).toEqual({ ...unauthorized, instance: '/svc-monitoring/hub' });
  });

  it('refuses a client address outside allowedIpAddresses with 403, even with a valid token', async () => {
    const { token } = await m.login();
    const outside = { 'X-Forwarded-For': '203.0.113.9' };
    const res = await fetch(`${m.hubUrl}/negotiate?negotiateVersion=1`, { method: 'POST', headers: { ...outside, Authorization: `Bearer ${token}` } });
    expect(res.status).toBe(403);
    expect(await upgradeStatus(m.hubUrl.replace('http', 'ws'), { ...outside, Authorization: `Bearer ${token}` })).toBe(403);
    const client = new HubConnectionBuilder()
      .withUrl(m.hubUrl, { accessTokenFactory: () => token, headers: outside })
      .configureLogging(LogLevel.None)
      .build();
    await expect(client.start()).rejects.toThrow(/403/);
  });
});

describe.each([HttpTransportType.WebSockets, HttpTransportType.ServerSentEvents, HttpTransportType.LongPolling])(
  'hub with the real engine (transport %s)',
  (transport) => {
    const t = openMonitoredStore();
    const engine = t.engine({ pollIntervalMs: 20 });
    const emitted: SvcEvent[] = [];
    let monitoring: Monitoring;
    let server: Server;
    let base = '';

    beforeAll(async () => {
      engine.handle('Hub.Tests.Succeeds', async (request: unknown) => ({ echoed: request }));
      engine.handle('Hub.Tests.Fails', async () => {
        throw new Error('invoice service unavailable');
      });
      engine.handle(
        'Hub.Tests.Hangs',
        (_request: unknown, ctx) =>
          new Promise<void>((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('aborted')))),
        { timeoutMs: 150 },
      );
      engine.on('event', (e) => emitted.push(e));
      await engine.start();
      monitoring = createMonitoring(await t.source(engine), { jwtSecret: 'integration-secret-0123456789abcdef', logger: quiet, loginRateLimit: false } as MonitoringOptions);
      await monitoring.ready;
      const app = express();
      app.use(monitoring.router);
      server = createServer(app);
      monitoring.attach(server);
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/svc-monitoring`;
    });
    afterAll(async () => {
      await monitoring.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await engine.stop({ graceMs: 0 });
      await t.destroy();
    });

    it('a client logged in via /auth/login receives the SvcEvents of tasks that complete, fail and time out', async () => {
      const login = await fetch(`${base}/api/auth/login`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ username: 'admin', password: 'admin' }),
      });
      expect(login.status).toBe(200);
      const { token } = (await login.json()) as LoginResponse;
      const client = new HubConnectionBuilder()
        .withUrl(`${base}/hub`, { transport, accessTokenFactory: () => token })
        .configureLogging(LogLevel.None)
        .build();
      const received: SvcEvent[] = [];
      client.on('SvcEvent', (e: SvcEvent) => received.push(e));
      await client.start();

      const ok = await engine.dispatch('Hub.Tests.Succeeds', { invoice: 7 });
      const failed = await engine.dispatch('Hub.Tests.Fails', { invoice: 8 });
      const timedOut = await engine.dispatch('Hub.Tests.Hangs', { invoice: 9 });
      const terminal = (id: string, kind: string) => () => received.some((e) => e.taskId === id && e.kind === kind);
      const deadline = Date.now() + 15_000;
      while (!(terminal(ok, 'Completed')() && terminal(failed, 'Failed')() && terminal(timedOut, 'Timeout')() && terminal(timedOut, 'Failed')())) {
        if (Date.now() > deadline) throw new Error(`events so far: ${JSON.stringify(received.map((e) => [e.taskId, e.kind]))}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      // The hub delivers in order: once a task dispatched now has completed on the client, every
      // event of the three tasks above has arrived too (a late duplicate would be in `received`).
      const marker = await engine.dispatch('Hub.Tests.Succeeds', { invoice: 10 });
      while (!terminal(marker, 'Completed')()) {
        if (Date.now() > deadline) throw new Error(`the marker task's Completed never arrived: ${JSON.stringify(received.map((e) => [e.taskId, e.kind]))}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      await client.stop();

      const mine = (id: string) => received.filter((e) => e.taskId === id);
      // Each received payload is exactly the engine's event (executionLogs omitted by default).
      const strip = (e: SvcEvent) => {
        const { executionLogs: _l, ...rest } = e;
        return rest;
      };
      for (const id of [ok, failed, timedOut]) {
        expect(mine(id)).toEqual(emitted.filter((e) => e.taskId === id).map(strip));
      }
      expect(mine(ok).map((e) => e.kind)).toEqual(['Started', 'Completed']);
      expect(mine(ok)[1]).toMatchObject({
        severity: 'Information',
        taskType: 'Hub.Tests.Succeeds',
        taskParameters: '{"invoice":7}',
        queueName: 'default',
      });
      expect(mine(failed).map((e) => e.kind)).toEqual(['Started', 'Failed']);
      expect(mine(failed)[1].severity).toBe('Error');
      expect(mine(failed)[1].exception).toContain('invoice service unavailable');
      expect(mine(timedOut).map((e) => e.kind)).toEqual(['Started', 'Timeout', 'Failed']);
      expect(mine(timedOut)[1].severity).toBe('Warning');
      for (const e of received) {
        expect(Object.values(e)).not.toContain(null);
        expect(e).not.toHaveProperty('executionLogs');
      }
    });
  },
);
