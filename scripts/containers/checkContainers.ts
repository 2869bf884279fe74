/**
 * The container checks of scripts/test-containers: the image built from deploy/Containerfile, run
 * with podman (runc) once on SQLite (a named volume, port published on 127.0.0.1) and once as two
 * containers on the machine's PostgreSQL (host network: a database made for the run, dropped
 * after). Each: the HEALTHCHECK, live/ready/metrics, a dispatch through the demo workload, and a
 * SIGTERM drain (readiness 503 first, connections refused after the drain delay, a real SignalR
 * client told to reconnect, the running task finished, exit 0 within the grace). Fails with the
 * container's log on the first broken expectation.
 */
import { HttpTransportType, HubConnectionBuilder, LogLevel, type HubConnection } from '@microsoft/signalr';
import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';

const IMAGE = process.env.SVC_MONITOR_TEST_IMAGE ?? 'localhost/svc-monitor:test';
const PG_ADMIN = process.env.SVC_MONITOR_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DRAIN_DELAY_MS = 1_500;
const STOP_GRACE_MS = 10_000;
const RUN_ID = `${process.pid}-${Date.now().toString(36)}`;
const METRICS_TOKEN = randomBytes(24).toString('base64url');
const JWT_SECRET = randomBytes(48).toString('base64url');

const podman = (...args: string[]): string => execFileSync('podman', ['--runtime', 'runc', ...args], { encoding: 'utf8' }).trim();
const say = (m: string) => console.log(`[test-containers] ${m}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

async function waitFor<T>(what: string, timeoutMs: number, check: () => Promise<T | undefined | false>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check().catch(() => undefined);
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

interface Container {
  name: string;
  base: string;
  api: string;
  dispatchUrl: string;
}

async function startContainer(name: string, mode: { sqliteVolume: string } | { database: string }): Promise<Container> {
  const port = await freePort();
  const env: Record<string, string> = {
    SVC_MONITOR_DRAIN_DELAY_MS: String(DRAIN_DELAY_MS),
    SVC_MONITOR_STOP_GRACE_MS: String(STOP_GRACE_MS),
    SVC_MONITOR_METRICS_TOKEN: METRICS_TOKEN,
    SVC_MONITOR_JWT_SECRET: JWT_SECRET,
  };
  const network: string[] = [];
  const volume: string[] = [];
  if ('database' in mode) {
    // The host's PostgreSQL listens on its loopback: the containers share the host's network.
    Object.assign(env, { SVC_MONITOR_DB: '', SVC_MONITOR_DATABASE: mode.database, SVC_MONITOR_HOST: '127.0.0.1', SVC_MONITOR_PORT: String(port) });
    network.push('--network', 'host');
  } else {
    network.push('-p', `127.0.0.1:${port}:5080`);
    volume.push('-v', `${mode.sqliteVolume}:/var/lib/svc-monitor`);
  }
  podman(
    'run', '-d', '--name', name,
    '--ulimit', 'nofile=1024:1024', '--ulimit', 'nproc=1024:1024',
    ...network, ...volume,
    ...Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
    IMAGE, 'demo', '--demo-dispatch-endpoint',
  );
  const base = `http://127.0.0.1:${port}/svc-monitoring`;
  const c = { name, base, api: `${base}/api`, dispatchUrl: `http://127.0.0.1:${port}/demo/dispatch` };
  try {
    await waitFor(`${name} ready`, 90_000, async () => (await fetch(`${base}/health/ready`)).status === 200);
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${logsOf(name)}`);
  }
  return c;
}

const logsOf = (name: string): string => {
  try {
    return execFileSync('podman', ['logs', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch {
    return '(no logs)';
  }
};

async function login(c: Container): Promise<string> {
  const r = await fetch(`${c.api}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: 'admin' }) });
  assert.equal(r.status, 200, 'login');
  return ((await r.json()) as { token: string }).token;
}

async function dispatch(c: Container, type: string): Promise<string> {
  const r = await fetch(c.dispatchUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type }) });
  assert.equal(r.status, 200, `dispatch ${type}`);
  return ((await r.json()) as { id: string }).id;
}

async function taskStatus(c: Container, token: string, id: string): Promise<string | undefined> {
  const r = await fetch(`${c.api}/tasks/${id}`, { headers: { authorization: `Bearer ${token}` } });
  return r.ok ? ((await r.json()) as { status: string }).status : undefined;
}

/** The HEALTHCHECK, liveness, readiness and the metrics scrape with the metrics token. */
async function checkProbes(c: Container): Promise<void> {
  podman('healthcheck', 'run', c.name); // exits non-zero (and throws) when unhealthy
  assert.deepEqual(await (await fetch(`${c.base}/health/live`)).json(), { status: 'alive' });
  const ready = await fetch(`${c.base}/health/ready`);
  assert.equal(ready.status, 200);
  const body = (await ready.json()) as Record<string, unknown>;
  assert.deepEqual({ ...body, engine: undefined }, { status: 'ready', storage: 'reachable', migrations: 'applied', draining: false, engine: undefined });
  assert.notEqual(body.engine, 'failed');
  assert.equal((await fetch(`${c.base}/metrics`)).status, 401, 'metrics need the token');
  const metrics = await fetch(`${c.base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  assert.equal(metrics.status, 200);
  assert.match(await metrics.text(), /^svc_task_/m);
}

interface DrainTimeline {
  readinessOff: number;
  refused: number;
  hubReconnecting: number;
  exit: number;
}

/**
 * SIGTERM while a slow task runs and a SignalR client is connected; returns the times (ms after
 * the signal) and the task's id, after checking the order and the exit code.
 */
async function checkDrain(c: Container): Promise<{ timeline: DrainTimeline; taskId: string }> {
  const token = await login(c);
  const hub: HubConnection = new HubConnectionBuilder()
    .withUrl(`${c.base}/hub`, { accessTokenFactory: () => token, transport: HttpTransportType.WebSockets })
    .withAutomaticReconnect([60_000])
    .configureLogging(LogLevel.None)
    .build();
  let reconnectingAt: number | undefined;
  hub.onreconnecting(() => (reconnectingAt = Date.now()));
  await hub.start();
  try {
    const taskId = await dispatch(c, 'slow');
    await waitFor(`slow task ${taskId} running`, 60_000, async () => (await taskStatus(c, token, taskId)) === 'InProgress');
    const t0 = Date.now();
    const exited = new Promise<{ code: number; at: number }>((resolve, reject) => {
      const w = spawn('podman', ['wait', c.name], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      w.stdout.on('data', (d: Buffer) => (out += d.toString()));
      w.once('error', reject);
      w.once('exit', () => resolve({ code: Number(out.trim()), at: Date.now() - t0 }));
    });
    podman('kill', '--signal', 'TERM', c.name);
    let readinessOff: number | undefined;
    let refused: number | undefined;
    while (refused === undefined) {
      try {
        const r = await fetch(`${c.base}/health/ready`, { signal: AbortSignal.timeout(2_000) });
        const body = (await r.json()) as { draining: boolean };
        if (r.status === 503 && body.draining) readinessOff ??= Date.now() - t0;
      } catch {
        refused = Date.now() - t0;
      }
      await sleep(20);
    }
    const exit = await exited;
    const logs = logsOf(c.name);
    assert.ok(readinessOff !== undefined && readinessOff < refused, `readiness 503 before connections were refused\n${logs}`);
    assert.ok(refused >= DRAIN_DELAY_MS - 50 && refused <= exit.at, `connections refused after the drain delay, before the exit\n${logs}`);
    await waitFor('hub client reconnecting', 5_000, async () => reconnectingAt !== undefined);
    assert.equal(exit.code, 0, `exit code\n${logs}`);
    assert.ok(exit.at < DRAIN_DELAY_MS + STOP_GRACE_MS, `exit within drain delay + grace (${exit.at} ms)\n${logs}`);
    assert.match(logs, /stop: readiness off[\s\S]*stop: not accepting connections[\s\S]*stop: hub connections closed[\s\S]*stop: engine and storage stopped/);
    return { timeline: { readinessOff, refused, hubReconnecting: reconnectingAt! - t0, exit: exit.at }, taskId };
  } finally {
    await hub.stop();
  }
}

const describeTimeline = (t: DrainTimeline) =>
  `SIGTERM → readiness 503 ${t.readinessOff} ms, connections refused ${t.refused} ms, hub reconnect hint ${t.hubReconnecting} ms, exit 0 ${t.exit} ms`;

async function sqliteRun(): Promise<void> {
  const volume = `svc-ct-${RUN_ID}`;
  const name = `svc-ct-sqlite-${RUN_ID}`;
  podman('volume', 'create', volume);
  try {
    const c = await startContainer(name, { sqliteVolume: volume });
    await checkProbes(c);
    const token = await login(c);
    const fast = await dispatch(c, 'fast');
    await waitFor(`fast task ${fast} completed`, 30_000, async () => (await taskStatus(c, token, fast)) === 'Completed');
    const { timeline, taskId } = await checkDrain(c);
    // The run finished inside the grace: the row on the volume says Completed.
    const file = join(podman('volume', 'inspect', volume, '--format', '{{.Mountpoint}}'), 'svc-monitor.db');
    const db = new Database(file, { readonly: true });
    try {
      assert.equal(db.prepare('SELECT status FROM tasks WHERE id = ?').pluck().get(taskId), 'Completed');
    } finally {
      db.close();
    }
    say(`SQLite: ${describeTimeline(timeline)}`);
  } finally {
    execFileSync('podman', ['rm', '-f', name], { stdio: 'ignore' });
    execFileSync('podman', ['volume', 'rm', '-f', volume], { stdio: 'ignore' });
  }
}

async function postgresRun(): Promise<void> {
  const database = `svc_ct_${RUN_ID.replace(/-/g, '_')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  const url = new URL(PG_ADMIN);
  url.pathname = `/${database}`;
  const names = [`svc-ct-pg-a-${RUN_ID}`, `svc-ct-pg-b-${RUN_ID}`];
  try {
    // One after the other: the first creates the schema.
    const a = await startContainer(names[0]!, { database: url.toString() });
    const b = await startContainer(names[1]!, { database: url.toString() });
    await checkProbes(a);
    await checkProbes(b);
    // A task dispatched through one container is read as completed through the other (one store).
    const token = await login(b);
    const fast = await dispatch(a, 'fast');
    await waitFor(`fast task ${fast} completed, seen through the other container`, 30_000, async () => (await taskStatus(b, token, fast)) === 'Completed');
    const { timeline, taskId } = await checkDrain(a);
    // The other replica stays ready and reads the drained replica's task as completed.
    assert.equal((await fetch(`${b.base}/health/ready`)).status, 200);
    const seen = await waitFor(`task ${taskId} finished, read through the other container`, 15_000, async () => {
      const status = await taskStatus(b, token, taskId);
      return status !== 'InProgress' && status;
    }).catch((err: Error) => `${err.message} (still InProgress)`);
    assert.equal(seen, 'Completed');
    say(`PostgreSQL (2 containers): ${describeTimeline(timeline)}`);
    podman('kill', '--signal', 'TERM', names[1]!);
    assert.equal(Number(podman('wait', names[1]!)), 0, 'second container exit code');
  } finally {
    for (const n of names) execFileSync('podman', ['rm', '-f', n], { stdio: 'ignore' });
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
  }
}

const started = Date.now();
await sqliteRun();
await postgresRun();
say(`runs on SQLite and PostgreSQL took ${((Date.now() - started) / 1000).toFixed(1)} s`);
