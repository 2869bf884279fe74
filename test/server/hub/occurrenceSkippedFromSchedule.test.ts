import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { HttpTransportType, HubConnectionBuilder, LogLevel } from '@microsoft/signalr';
import { afterAll, describe, expect, it } from 'vitest';
import type { LoginResponse, SvcEvent } from '../../../server/src/contracts/index.js';
import { createMonitoring } from '../../../server/src/monitoring/createMonitoring.js';
import { openMonitoredStore } from '../../fixtures/server/monitoredStore.js';

const quiet = { info: () => undefined, warn: () => undefined };
const HOUR = 3_600_000;

describe('OccurrenceSkipped from a real durable schedule reaches a @microsoft/signalr client', () => {
  const t = openMonitoredStore();
  afterAll(() => t.destroy());

  it('an hourly Skip schedule down for three days: one NotCurrent event with the schedule id, count and slot range', async () => {
    // Three days ago an engine created the schedule, then the host went down.
    const createdAt = Date.now() - 72 * HOUR - 60_000;
    const old = t.engine({ clock: () => createdAt });
    const scheduleId = await old.schedules.upsert({
      key: 'hourly-report', type: 'Hub.Tests.Hourly', every: '1h',
      misfire: { policy: 'Skip', windowMs: 7 * 24 * HOUR },
    });

    // The host comes back: engine + monitoring + hub on the same store.
    const engine = t.engine({ pollIntervalMs: 20 });
    engine.handle('Hub.Tests.Hourly', () => undefined);
    const emitted: SvcEvent[] = [];
    engine.on('event', (e) => emitted.push(e));
    const monitoring = createMonitoring(await t.source(engine), { jwtSecret: 'skipped-secret-0123456789abcdef0123', logger: quiet });
    const app = express();
    app.use(monitoring.router);
    const server = createServer(app);
    monitoring.attach(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/svc-monitoring`;
    try {
      const login = await fetch(`${base}/api/auth/login`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: 'admin' }),
      });
      const { token } = (await login.json()) as LoginResponse;
      const client = new HubConnectionBuilder()
        .withUrl(`${base}/hub`, { transport: HttpTransportType.WebSockets, accessTokenFactory: () => token })
        .configureLogging(LogLevel.None)
        .build();
      const received: SvcEvent[] = [];
      client.on('SvcEvent', (e: SvcEvent) => received.push(e));
      await client.start();

      await engine.start();
      const deadline = Date.now() + 10_000;
      while (!received.some((e) => e.kind === 'OccurrenceSkipped') || !received.some((e) => e.kind === 'Completed')) {
        if (Date.now() > deadline) throw new Error(`events so far: ${JSON.stringify(received.map((e) => e.kind))}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      await client.stop();

      const skipped = received.filter((e) => e.kind === 'OccurrenceSkipped');
      expect(skipped).toHaveLength(1);
      expect(skipped[0]).toEqual(emitted.find((e) => e.kind === 'OccurrenceSkipped'));
      // 72 slots were due; Skip runs only the newest and skips the 71 before it.
      expect(skipped[0]).toMatchObject({ taskId: scheduleId, reason: 'NotCurrent', skippedCount: 71, severity: 'Warning', scheduleVersion: 1 });
      const first = Date.parse(skipped[0]!.firstSlotUtc!);
      const last = Date.parse(skipped[0]!.lastSlotUtc!);
      expect(last - first).toBe(70 * HOUR);
      expect(first).toBe(createdAt + HOUR);
      // The one occurrence that ran is the newest slot, a child of the schedule.
      const completed = received.filter((e) => e.kind === 'Completed');
      expect(completed).toHaveLength(1);
      expect(completed[0]!.parentTaskId).toBe(scheduleId);
      expect(Object.values(skipped[0]!)).not.toContain(null);
    } finally {
      await monitoring.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await engine.stop({ graceMs: 1_000 });
    }
  });
});
