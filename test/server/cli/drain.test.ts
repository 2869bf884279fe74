import { HttpTransportType, HubConnectionBuilder, LogLevel, type HubConnection } from '@microsoft/signalr';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { apiLogin, startCli, type CliProcess } from '../../fixtures/demoProcess.js';
import { waitFor } from '../../fixtures/waitFor.js';

const statusOf = (file: string, id: string): string => {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT status FROM tasks WHERE id = ?').pluck().get(id) as string;
  } finally {
    db.close();
  }
};

/** Waits until the task runs (the reports queue runs one at a time, after any slow task before it). */
async function runningTask(demo: CliProcess, token: string, type: 'slow' | 'timeout'): Promise<string> {
  const id = await demo.dispatch(type);
  await waitFor(
    async () => {
      const r = await fetch(`${demo.api}/tasks/${id}`, { headers: { authorization: `Bearer ${token}` } });
      return r.ok && ((await r.json()) as { status: string }).status === 'InProgress';
    },
    30_000,
    `${type} task ${id} InProgress`,
  );
  return id;
}

/** Polls readiness every 20 ms from `t0` until the server refuses connections; the times seen, relative to t0. */
async function readinessTimeline(ready: string, t0: number): Promise<{ firstUnavailable?: number; refused?: number; statuses: number[] }> {
  const out: { firstUnavailable?: number; refused?: number; statuses: number[] } = { statuses: [] };
  for (;;) {
    try {
      const r = await fetch(ready, { signal: AbortSignal.timeout(2_000) });
      const body = (await r.json()) as { draining: boolean };
      out.statuses.push(r.status);
      if (r.status === 503 && body.draining && out.firstUnavailable === undefined) out.firstUnavailable = Date.now() - t0;
    } catch {
      out.refused = Date.now() - t0;
      return out;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('SIGTERM drains a demo process in order', () => {
  it('readiness 503 first, then no new connections, hub clients told to reconnect, the running task finishes, exit 0 within the grace', async () => {
    const drainDelayMs = 1_000;
    const stopGraceMs = 8_000;
    const demo = await startCli('demo', { args: ['--demo-dispatch-endpoint', '--drain-delay-ms', String(drainDelayMs), '--stop-grace-ms', String(stopGraceMs)] });
    let hub: HubConnection | undefined;
    try {
      const token = await apiLogin(demo.api);
      const ready = `${demo.base}/health/ready`;
      expect((await fetch(ready)).status).toBe(200);
      hub = new HubConnectionBuilder()
        .withUrl(`${demo.base}/hub`, { accessTokenFactory: () => token, transport: HttpTransportType.WebSockets })
        // A long first delay: the test sees the reconnecting state, not a reconnect to a stopped server.
        .withAutomaticReconnect([60_000])
        .configureLogging(LogLevel.None)
        .build();
      let reconnectingAt: number | undefined;
      let closedWithoutReconnect = false;
      hub.onreconnecting(() => (reconnectingAt = Date.now()));
      hub.onclose(() => (closedWithoutReconnect = reconnectingAt === undefined));
      await hub.start();
      const taskId = await runningTask(demo, token, 'slow');

      const t0 = Date.now();
      demo.signal('SIGTERM');
      const exitedAt = demo.exited.then((code) => ({ code, at: Date.now() - t0 }));
      const timeline = await readinessTimeline(ready, t0);
      const exit = await exitedAt;

      // 1. readiness turned 503 (draining) right away, while the server still answered
      expect(timeline.firstUnavailable).toBeDefined();
      expect(timeline.firstUnavailable!).toBeLessThan(drainDelayMs / 2);
      expect(timeline.statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(1);
      // 2. only after the drain delay were new connections refused, before the exit
      expect(timeline.refused!).toBeGreaterThanOrEqual(drainDelayMs - 50);
      expect(timeline.refused!).toBeLessThanOrEqual(exit.at);
      // 3. the hub's Close allowed a reconnect: the client went to reconnecting, not closed
      await waitFor(() => reconnectingAt !== undefined, 5_000, 'hub client reconnecting');
      expect(closedWithoutReconnect).toBe(false);
      expect(reconnectingAt! - t0).toBeGreaterThanOrEqual(drainDelayMs - 50);
      // 4. the running task finished within the grace; 5. exit 0 within drain delay + grace
      expect(exit.code).toBe(0);
      expect(exit.at).toBeLessThan(drainDelayMs + stopGraceMs);
      expect(statusOf(demo.dbFile, taskId)).toBe('Completed');
      expect(demo.output()).toMatch(/stop: readiness off[\s\S]*stop: not accepting connections[\s\S]*stop: hub connections closed[\s\S]*stop: engine and storage stopped/);
      console.log(`drain timeline (ms after SIGTERM): readiness 503 at ${timeline.firstUnavailable}, connections refused at ${timeline.refused}, hub reconnecting at ${reconnectingAt! - t0}, exit 0 at ${exit.at}`);
    } finally {
      await hub?.stop();
      await demo.stop();
    }
  }, 90_000);

  it('a task still running past the grace is handed back (ServiceStopped) and the process still exits 0', async () => {
    const demo = await startCli('demo', { args: ['--demo-dispatch-endpoint', '--stop-grace-ms', '200'] });
    try {
      const token = await apiLogin(demo.api);
      const taskId = await runningTask(demo, token, 'slow');
      const t0 = Date.now();
      demo.signal('SIGTERM');
      expect(await demo.exited).toBe(0);
      expect(Date.now() - t0).toBeLessThan(5_000);
      expect(statusOf(demo.dbFile, taskId)).toBe('ServiceStopped');
    } finally {
      await demo.stop();
    }
  }, 90_000);
});
