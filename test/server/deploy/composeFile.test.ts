// @backends sqlite — reads the compose recipe; no store involved.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

const COMPOSE = fileURLToPath(new URL('../../../deploy/compose.yaml', import.meta.url));

interface ComposeService {
  image: string;
  command?: string[];
  environment: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck: { test: string[] };
  stop_grace_period?: string;
  ports?: string[];
  volumes?: string[];
}
const compose = parse(readFileSync(COMPOSE, 'utf8'), { merge: true }) as { services: Record<string, ComposeService>; volumes: Record<string, unknown> };
const replicas = Object.entries(compose.services).filter(([name]) => name.startsWith('svc-monitor'));

describe('deploy/compose.yaml', () => {
  it('two replicas on one PostgreSQL, started once it is healthy, each with a readiness health check and a stop grace above the drain budget', () => {
    expect(replicas).toHaveLength(2);
    const postgres = compose.services.postgres!;
    expect(postgres.healthcheck.test.join(' ')).toMatch(/pg_isready/);
    const [volume] = postgres.volumes![0]!.split(':');
    expect(Object.keys(compose.volumes)).toContain(volume);
    const databases = new Set(replicas.map(([, s]) => s.environment.SVC_MONITOR_DATABASE));
    expect(databases.size).toBe(1);
    expect([...databases][0]).toMatch(/^postgres:\/\/svc:.*@postgres:5432\/svc_monitor$/);
    for (const [name, s] of replicas) {
      expect(s.depends_on, name).toEqual({ postgres: { condition: 'service_healthy' } });
      expect(s.environment.SVC_MONITOR_DB, name).toBe('');
      expect(s.healthcheck.test.join(' '), name).toContain('/svc-monitoring/health/ready');
      const budgetMs = Number(s.environment.SVC_MONITOR_DRAIN_DELAY_MS) + Number(s.environment.SVC_MONITOR_STOP_GRACE_MS) + 5_000;
      expect(Number(/^(\d+)s$/.exec(s.stop_grace_period!)![1]) * 1000, name).toBeGreaterThan(budgetMs);
    }
    // Each replica on its own loopback port.
    expect(new Set(replicas.map(([, s]) => s.ports![0])).size).toBe(2);
  });

  const podmanCompose = spawnSync('podman-compose', ['version'], { encoding: 'utf8' });
  it.skipIf(podmanCompose.error !== undefined)('podman-compose renders the podman commands (dry run), the JWT secret required', () => {
    const cwd = fileURLToPath(new URL('../../../deploy/', import.meta.url));
    // The dry run still creates the project's volume and network: a project of its own, removed after.
    const project = `svc-compose-test-${process.pid}`;
    const env = { ...process.env, SVC_MONITOR_JWT_SECRET: 'x'.repeat(64) };
    const dryRun = (e: NodeJS.ProcessEnv) => spawnSync('podman-compose', ['--dry-run', '-p', project, '-f', 'compose.yaml', 'up', '-d'], { cwd, env: e, encoding: 'utf8' });
    try {
      const r = dryRun(env);
      const runs = r.stdout.split('\n').filter((l) => l.startsWith('podman run '));
      expect(runs.map((l) => /--name=(\S+)/.exec(l)![1]).sort()).toEqual([`${project}_postgres_1`, `${project}_svc-monitor-1_1`, `${project}_svc-monitor-2_1`]);
      for (const l of runs.filter((x) => x.includes('svc-monitor-'))) expect(l).toContain(`SVC_MONITOR_JWT_SECRET=${'x'.repeat(64)}`);
      const { SVC_MONITOR_JWT_SECRET: _secret, ...withoutSecret } = env;
      const refused = dryRun(withoutSecret);
      expect(refused.stderr + refused.stdout).toMatch(/set SVC_MONITOR_JWT_SECRET/);
    } finally {
      spawnSync('podman', ['volume', 'rm', '-f', `${project}_pgdata`]);
      spawnSync('podman', ['network', 'rm', '-f', `${project}_default`]);
    }
  });
});
