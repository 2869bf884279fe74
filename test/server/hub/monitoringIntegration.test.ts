import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HubConnectionBuilder, HttpTransportType, LogLevel } from '@microsoft/signalr';
import type { LoginResponse, SvcEvent } from '../../../server/src/contracts/index.js';
import { createMonitoring, type Monitoring } from '../../../server/src/monitoring/createMonitoring.js';
import type { MonitoringOptions } from '../../../server/src/monitoring/options.js';
import { openSqliteStorage } from '../../../server/src/storage/sqlite/openSqliteStorage.js';
import { collectEvents, sampleEvent } from './hubFixture.js';
import { upgradeStatus } from './rawClient.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** The hub as the monitoring wires it: JWT from /auth/login, IP allow-list, one app and server. */
async function startMonitoring(options: MonitoringOptions) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-hub-'));
  const storage = openSqliteStorage({ file: join(dir, 'tasks.db') });
  // An EventEmitter standing in for the engine's event source (schedule operations unused here).
  const engine = Object.assign(new EventEmitter(), {
    schedules: {
      requeue: () => Promise.reject(new Error('unused')),
      resume: () => Promise.reject(new Error('unused')),
      cancel: () => Promise.reject(new Error('unused')),
    },
  });
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
      storage.close();
      rmSync(dir, { recursive: true, force: true });
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
