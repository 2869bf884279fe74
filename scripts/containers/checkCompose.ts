/**
 * The compose run of scripts/test-containers: deploy/compose.yaml for real with podman-compose
 * (scripts/containers/compose.test.yaml laid over it: `demo` replicas with their dispatch endpoint,
 * ulimits these machines grant), on the image under test and a PostgreSQL image built from Debian
 * packages (scripts/containers/postgres-image). Checks: PostgreSQL and both replicas up on the
 * compose network with the volume, each container's health check passing, a task dispatched
 * through one replica read as completed through the other, one replica stopped and the other
 * taking the work (a task dispatched before the stop ends Completed, new tasks run), `down -v`
 * removing containers and the volume. Fails with the containers' logs on the first broken expectation.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

const IMAGE = process.env.SVC_MONITOR_TEST_IMAGE ?? 'localhost/svc-monitor:test';
const POSTGRES_IMAGE = process.env.SVC_MONITOR_TEST_POSTGRES_IMAGE ?? 'localhost/svc-monitor-test/postgres:15-bookworm';
const PROJECT = `svcct${process.pid}`;
/** The replicas' published ports (deploy/compose.yaml). */
const REPLICAS = { 'svc-monitor-1': 5081, 'svc-monitor-2': 5082 } as const;
type Replica = keyof typeof REPLICAS;

const env = {
  ...process.env,
  SVC_MONITOR_IMAGE: IMAGE,
  POSTGRES_IMAGE,
  SVC_MONITOR_COMMAND: 'demo',
  SVC_MONITOR_PG_PASSWORD: randomBytes(16).toString('hex'),
  SVC_MONITOR_JWT_SECRET: randomBytes(48).toString('base64url'),
};
const say = (m: string) => console.log(`[test-containers] compose: ${m}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const compose = (...args: string[]): string =>
  execFileSync('podman-compose', ['--podman-args', '--runtime runc', '-p', PROJECT, '-f', 'deploy/compose.yaml', '-f', 'scripts/containers/compose.test.yaml', ...args], {
    encoding: 'utf8',
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
const podman = (...args: string[]): string => execFileSync('podman', ['--runtime', 'runc', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
const container = (service: string) => `${PROJECT}_${service}_1`;
const base = (r: Replica) => `http://127.0.0.1:${REPLICAS[r]}/svc-monitoring`;

async function waitFor<T>(what: string, timeoutMs: number, check: () => Promise<T | undefined | false>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check().catch(() => undefined);
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

const logs = (): string =>
  ['postgres', ...Object.keys(REPLICAS)]
    .map((s) => {
      try {
        return `--- ${s}\n${execFileSync('podman', ['logs', '--tail', '40', container(s)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })}`;
      } catch {
        return `--- ${s}: no logs`;
      }
    })
    .join('\n');

async function login(r: Replica): Promise<string> {
  const res = await fetch(`${base(r)}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: 'admin' }) });
  assert.equal(res.status, 200, `login on ${r}`);
  return ((await res.json()) as { token: string }).token;
}

async function dispatch(r: Replica, type: string): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${REPLICAS[r]}/demo/dispatch`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type }) });
  assert.equal(res.status, 200, `dispatch ${type} through ${r}`);
  return ((await res.json()) as { id: string }).id;
}

async function completed(r: Replica, token: string, id: string, timeoutMs: number): Promise<void> {
  await waitFor(`task ${id} Completed, read through ${r}`, timeoutMs, async () => {
    const res = await fetch(`${base(r)}/api/tasks/${id}`, { headers: { authorization: `Bearer ${token}` } });
    return res.ok && ((await res.json()) as { status: string }).status === 'Completed';
  });
}

const started = Date.now();
try {
  compose('up', '-d', '--no-build');
  // podman-compose 1.0 starts every service at once (it does not wait on depends_on's
  // service_healthy): a replica that finds PostgreSQL not yet accepting exits and is restarted.
  for (const r of Object.keys(REPLICAS) as Replica[]) {
    await waitFor(`${r} ready`, 150_000, async () => (await fetch(`${base(r)}/health/ready`)).status === 200);
  }
  say(`PostgreSQL and two replicas ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  // Each service's health check, as compose wired it (podman runs it on demand). Compose calls a
  // service unhealthy after `retries: 3` failures in a row; a loaded machine may need more than
  // the check's 3 s to start node once, so one passing run in three counts here too.
  for (const s of ['postgres', ...Object.keys(REPLICAS)]) {
    for (let attempt = 1; ; attempt++) {
      try {
        podman('healthcheck', 'run', container(s));
        break;
      } catch (err) {
        if (attempt === 3) throw err;
      }
    }
  }
  const volumes = podman('volume', 'ls', '--format', '{{.Name}}').split('\n');
  assert.ok(volumes.includes(`${PROJECT}_pgdata`), `the volume ${PROJECT}_pgdata exists`);

  const token = await login('svc-monitor-2');
  const first = await dispatch('svc-monitor-1', 'fast');
  await completed('svc-monitor-2', token, first, 30_000);

  // Replica 1 stops with a slow task of its own: the task ends Completed (finished in the grace or
  // handed back and run by replica 2), and replica 2 stays ready and runs new work.
  const slow = await dispatch('svc-monitor-1', 'slow');
  compose('stop', 'svc-monitor-1');
  assert.notEqual(podman('inspect', '--format', '{{.State.Status}}', container('svc-monitor-1')), 'running');
  // (Asked again on a failed request: a kept-alive socket may close under the first one after the stop's wait.)
  await waitFor('replica 2 ready after replica 1 stopped', 10_000, async () => (await fetch(`${base('svc-monitor-2')}/health/ready`)).status === 200);
  await completed('svc-monitor-2', token, slow, 60_000);
  const after = await dispatch('svc-monitor-2', 'fast');
  await completed('svc-monitor-2', token, after, 30_000);
  say('replica 1 stopped: its task and new ones completed through replica 2');
} catch (err) {
  console.error(logs());
  throw err;
} finally {
  try {
    compose('down', '-v');
  } catch (err) {
    console.error(`compose down -v failed: ${(err as Error).message}`);
  }
  // podman-compose 1.0's down leaves the project's network.
  execFileSync('podman', ['network', 'rm', '-f', `${PROJECT}_default`], { stdio: 'ignore' });
}
const left = podman('ps', '-a', '--filter', `label=io.podman.compose.project=${PROJECT}`, '--format', '{{.Names}}');
assert.equal(left, '', 'down -v removes the containers');
assert.ok(!podman('volume', 'ls', '--format', '{{.Name}}').split('\n').includes(`${PROJECT}_pgdata`), 'down -v removes the volume');
say(`up, checks and down -v in ${((Date.now() - started) / 1000).toFixed(1)} s`);
