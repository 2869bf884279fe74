import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const PROMETHEUS = '/usr/bin/prometheus';

/** A free loopback port (taken and released). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export interface RunningPrometheus {
  url: string;
  /** Evaluates an instant PromQL query through the HTTP API. */
  query(promql: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>>;
  stop(): Promise<void>;
}

/** A real Prometheus on loopback, in a temporary folder, scraping `target` every second. */
export async function startPrometheus(target: { hostPort: string; metricsPath: string; bearer?: string }): Promise<RunningPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-prometheus-'));
  const port = await freePort();
  const config = [
    'global:',
    '  scrape_interval: 1s',
    '  scrape_timeout: 900ms',
    'scrape_configs:',
    '  - job_name: svc',
    `    metrics_path: ${target.metricsPath}`,
    ...(target.bearer !== undefined ? ['    authorization:', `      credentials: ${target.bearer}`] : []),
    '    static_configs:',
    `      - targets: ['${target.hostPort}']`,
    '',
  ].join('\n');
  writeFileSync(join(dir, 'prometheus.yml'), config);
  const child: ChildProcess = spawn(
    PROMETHEUS,
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prometheus exited (${child.exitCode}): ${stderr}`);
    const ready = await fetch(`${url}/-/ready`).then((r) => r.ok, () => false);
    if (ready) break;
    if (Date.now() > deadline) throw new Error(`prometheus not ready: ${stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    async query(promql) {
      const res = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`);
      const body = (await res.json()) as { status: string; error?: string; data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> } };
      if (body.status !== 'success') throw new Error(`query ${promql}: ${body.error}`);
      return body.data.result;
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
