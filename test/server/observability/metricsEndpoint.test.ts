import { HubConnectionBuilder, HttpTransportType, LogLevel } from '@microsoft/signalr';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, harness } from '../../fixtures/server/engineHarness.js';
import { waitFor } from '../../fixtures/waitFor.js';
import { login, serve, type Served } from '../../fixtures/server/servedMonitoring.js';
import { parseSamples, sampleValue, scrape } from '../../fixtures/server/scrape.js';

const METRICS_TOKEN = 'scraper-secret-0123456789';
let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
  await closeAll();
});

/** An engine that ran three tasks to completion, one to a final failure and one to a final timeout. */
async function ranWork(options: { typeLimit?: number } = {}) {
  const h = harness({ pollIntervalMs: 20 });
  h.engine.handle('mail.send', async () => undefined);
  h.engine.handle('report.build', async () => {
    throw new Error('no data');
  });
  h.engine.handle('slow.job', () => new Promise((r) => setTimeout(r, 2000)), { timeoutMs: 30 });
  await h.engine.start();
  served = await serve(
    { engine: h.engine, storage: h.storage },
    { enableAuthentication: true, metricsToken: METRICS_TOKEN, ...(options.typeLimit !== undefined ? { metricsTypeLabelLimit: options.typeLimit } : {}) },
  );
  for (let i = 0; i < 3; i++) await h.engine.dispatch('mail.send', { i });
  await h.engine.dispatch('report.build', {});
  await h.engine.dispatch('slow.job', {});
  await waitFor(() => h.events.filter((e) => e.kind === 'Completed' || e.kind === 'Failed').length === 5, 10_000, 'five ends');
  return h;
}

describe('GET /svc-monitoring/metrics', () => {
  it('refuses a scraper without a bearer (401 problem), and answers the metrics token and a login token', async () => {
    await ranWork();
    const refused = await fetch(`${served!.baseUrl}/svc-monitoring/metrics`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer');
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/bearer token/i);
    expect((await scrape(served!, 'not-the-token')).status).toBe(401);

    const byToken = await scrape(served!, METRICS_TOKEN);
    expect(byToken.status).toBe(200);
    expect(byToken.type).toMatch(/^text\/plain; version=0\.0\.4/);
    const byLogin = await scrape(served!, await login(served!.api));
    expect(byLogin.status).toBe(200);
  });

  it('counts ends by queue, type and outcome, times runs and waits, and reads task gauges from the store', async () => {
    await ranWork();
    // The store is written in the commit after each end: wait until the read models show all five.
    let samples = parseSamples((await scrape(served!, METRICS_TOKEN)).text);
    await waitFor(async () => {
      samples = parseSamples((await scrape(served!, METRICS_TOKEN)).text);
      return sampleValue(samples, 'svc_tasks', { queue: 'default', status: 'Completed' }) === 3 && sampleValue(samples, 'svc_tasks', { queue: 'default', status: 'Failed' }) === 2;
    }, 5000, 'read models');
    const v = (name: string, labels: Record<string, string> = {}) => sampleValue(samples, name, labels);
    expect(v('svc_tasks_finished_total', { queue: 'default', type: 'mail.send', outcome: 'completed' })).toBe(3);
    expect(v('svc_tasks_finished_total', { type: 'report.build', outcome: 'failed' })).toBe(1);
    expect(v('svc_tasks_finished_total', { type: 'slow.job', outcome: 'timed_out' })).toBe(1);
    expect(v('svc_tasks_finished_total', { type: 'slow.job', outcome: 'failed' })).toBeUndefined();
    expect(v('svc_task_attempt_seconds_count', { queue: 'default', type: 'mail.send' })).toBe(3);
    expect(v('svc_task_duration_seconds_count', { queue: 'default', type: 'mail.send' })).toBe(3);
    expect(v('svc_task_wait_seconds_count', { queue: 'default' })).toBe(5);
    expect(v('svc_task_wait_seconds_bucket', { queue: 'default', le: '+Inf' })).toBe(5);
    expect(v('svc_tasks', { queue: 'default', status: 'Queued' })).toBe(0);
    expect(v('svc_queue_oldest_waiting_seconds', { queue: 'default' })).toBe(0);
    expect(v('svc_schedules', { state: 'active' })).toBe(0);
    expect(v('svc_schedules', { state: 'halted' })).toBe(0);
    expect(v('svc_engine_health', { state: 'ok' })).toBe(1);
    expect(v('svc_engine_health', { state: 'failed' })).toBe(0);
    expect(v('svc_engine_unwritten_changes')).toBe(0);
    expect(v('svc_engine_commit_seconds_count')!).toBeGreaterThan(0);
    expect(v('svc_process_cpu_user_seconds_total')).toBeGreaterThan(0);
    // Per-process families carry the engine's instance; no sample carries a task id.
    const finished = samples.filter((s) => s.name === 'svc_tasks_finished_total');
    expect(new Set(finished.map((s) => s.labels.engine_instance)).size).toBe(1);
    expect(samples.some((s) => Object.keys(s.labels).some((k) => /task_?id/i.test(k)))).toBe(false);
  });

  it('counts HTTP answers by catalogue route name, never by raw path', async () => {
    await ranWork();
    const token = await login(served!.api);
    await fetch(`${served!.api}/tasks/00000000-0000-0000-0000-000000000000`, { headers: { authorization: `Bearer ${token}` } });
    await fetch(`${served!.api}/tasks`);
    await fetch(`${served!.baseUrl}/svc-monitoring/metrics`);
    const samples = parseSamples((await scrape(served!, METRICS_TOKEN)).text);
    expect(sampleValue(samples, 'svc_http_requests_total', { route: 'getTask', status: '404' })).toBe(1);
    expect(sampleValue(samples, 'svc_http_requests_total', { route: 'listTasks', status: '401' })).toBe(1);
    expect(sampleValue(samples, 'svc_http_requests_total', { route: 'login', status: '200' })).toBe(1);
    expect(sampleValue(samples, 'svc_http_requests_total', { route: 'getMetrics', status: '401' })).toBe(1);
    expect(samples.filter((s) => s.name === 'svc_http_requests_total').every((s) => !s.labels.route!.includes('/'))).toBe(true);
  });

  it('counts hub connections by transport and the messages the hub sent (a real SignalR client)', async () => {
    const h = harness({ pollIntervalMs: 20 });
    h.engine.handle('mail.send', async () => undefined);
    await h.engine.start();
    served = await serve({ engine: h.engine, storage: h.storage }, { enableAuthentication: false });
    const client = new HubConnectionBuilder()
      .withUrl(`${served.baseUrl}/svc-monitoring/hub`, { transport: HttpTransportType.ServerSentEvents })
      .configureLogging(LogLevel.None)
      .build();
    let received = 0;
    client.on('SvcEvent', () => void received++);
    await client.start();
    try {
      await h.engine.dispatch('mail.send', {});
      await waitFor(() => received >= 2, 5000, 'Started and Completed at the client');
      const samples = parseSamples((await scrape(served)).text);
      expect(sampleValue(samples, 'svc_hub_connections', { transport: 'ServerSentEvents' })).toBe(1);
      expect(sampleValue(samples, 'svc_hub_connections', { transport: 'WebSockets' })).toBeUndefined();
      expect(sampleValue(samples, 'svc_hub_messages_sent_total')).toBeGreaterThanOrEqual(received);
    } finally {
      await client.stop();
    }
    await waitFor(async () => sampleValue(parseSamples((await scrape(served!)).text), 'svc_hub_connections', { transport: 'ServerSentEvents' }) === undefined, 5000, 'the connection gone');
  });

  it('bounds the type label: types beyond the limit share "other"', async () => {
    await ranWork({ typeLimit: 1 });
    const samples = parseSamples((await scrape(served!, METRICS_TOKEN)).text);
    const types = new Set(samples.filter((s) => s.name === 'svc_tasks_finished_total').map((s) => s.labels.type));
    expect(types.size).toBe(2);
    expect(types.has('other')).toBe(true);
  });

  it('answers OpenMetrics when the scraper asks for it', async () => {
    await ranWork();
    const om = await scrape(served!, METRICS_TOKEN, 'application/openmetrics-text; version=1.0.0,text/plain;q=0.5');
    expect(om.status).toBe(200);
    expect(om.type).toMatch(/^application\/openmetrics-text; version=1\.0\.0/);
    expect(om.text.endsWith('# EOF\n')).toBe(true);
    expect(om.text).toContain('# TYPE svc_tasks_finished counter');
    expect(om.text).toMatch(/\nsvc_tasks_finished_total\{[^}]*outcome="completed"[^}]*\} 3\n/);
    // The Prometheus format afterwards is unchanged (counter names keep _total).
    const text = (await scrape(served!, METRICS_TOKEN)).text;
    expect(text).toContain('# TYPE svc_tasks_finished_total counter');
  });

  it('passes promtool check metrics', async () => {
    await ranWork();
    const { text } = await scrape(served!, METRICS_TOKEN);
    const dir = mkdtempSync(join(tmpdir(), 'svc-promtool-'));
    try {
      const file = join(dir, 'scrape.txt');
      writeFileSync(file, text);
      // promtool reads the scrape on stdin; lint problems are printed and make it exit non-zero.
      const out = execFileSync('/bin/sh', ['-c', `/usr/bin/promtool check metrics < "${file}" 2>&1`], { encoding: 'utf8' });
      expect(out).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('needs no bearer when the host turns authentication off, and does not exist with enableMetrics false', async () => {
    const h = harness();
    served = await serve({ engine: h.engine, storage: h.storage }, { enableAuthentication: false });
    expect((await scrape(served)).status).toBe(200);
    await served.close();
    served = await serve({ engine: h.engine, storage: h.storage }, { enableAuthentication: false, enableMetrics: false });
    expect((await scrape(served)).status).toBe(404);
  });

  it('a standalone registration (no engine) exports the global gauges only', async () => {
    const h = await ranWork();
    const standalone = await serve({ storage: h.storage }, { enableAuthentication: false });
    try {
      const samples = parseSamples((await scrape(standalone)).text);
      expect(sampleValue(samples, 'svc_tasks', { queue: 'default', status: 'Completed' })).toBe(3);
      expect(samples.some((s) => s.name.startsWith('svc_tasks_finished'))).toBe(false);
      expect(samples.some((s) => s.name.startsWith('svc_engine_'))).toBe(false);
    } finally {
      await standalone.close();
    }
  });

  it('refuses a short metricsToken at startup, naming the option', async () => {
    const h = harness();
    await expect(serve({ engine: h.engine, storage: h.storage }, { metricsToken: 'short' })).rejects.toThrow(/metricsToken.*at least 16/);
  });
});
