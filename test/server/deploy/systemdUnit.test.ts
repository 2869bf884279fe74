// @backends sqlite — checks the systemd unit file; no store involved.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const UNIT = fileURLToPath(new URL('../../../deploy/systemd/svc-monitor.service', import.meta.url));
const analyze = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
const why = analyze.error ? `systemd-analyze cannot run here (${analyze.error.message}): install Debian's systemd package` : undefined;

/** The unit's `Key=value` lines (repeated keys in order). */
function settings(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z]+)=(.*)$/.exec(line.trim());
    if (m) out.set(m[1]!, [...(out.get(m[1]!) ?? []), m[2]!]);
  }
  return out;
}

const text = readFileSync(UNIT, 'utf8');
const unit = settings(text);
/** The Environment= assignments, by name. */
const environment = new Map((unit.get('Environment') ?? []).flatMap((l) => l.split(/\s+/)).map((kv) => kv.split('=', 2) as [string, string]));

describe.skipIf(why !== undefined)('deploy/systemd/svc-monitor.service', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-unit-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const copy = join(dir, 'svc-monitor.service');
  copyFileSync(UNIT, copy);

  it('passes systemd-analyze verify without a warning', () => {
    const r = spawnSync('systemd-analyze', ['verify', copy], { encoding: 'utf8' });
    expect(r.stderr.trim()).toBe('');
    expect(r.status).toBe(0);
  });

  it('has an exposure of at most 2.0 in systemd-analyze security (offline)', () => {
    const r = spawnSync('systemd-analyze', ['security', '--offline=true', '--no-pager', copy], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const score = /Overall exposure level for svc-monitor\.service: ([\d.]+)/.exec(r.stdout);
    expect(score, r.stdout).not.toBeNull();
    console.log(`systemd-analyze security exposure: ${score![1]}`);
    expect(Number(score![1])).toBeLessThanOrEqual(2.0);
  });

  it('runs as a dynamic user with its own state directory, restarts on failure, and waits for the drain', () => {
    for (const [key, value] of [
      ['DynamicUser', 'yes'],
      ['StateDirectory', 'svc-monitor'],
      ['ProtectSystem', 'strict'],
      ['NoNewPrivileges', 'yes'],
      ['Restart', 'on-failure'],
      ['Type', 'exec'],
      ['KillSignal', 'SIGTERM'],
    ] as const) {
      expect(unit.get(key), key).toEqual([value]);
    }
    expect(environment.get('SVC_MONITOR_DB')).toBe('/var/lib/svc-monitor/svc-monitor.db');
    // systemd waits longer than the process may take to drain (drain delay + grace + its 5 s margin).
    const stopBudgetMs = Number(environment.get('SVC_MONITOR_DRAIN_DELAY_MS')) + Number(environment.get('SVC_MONITOR_STOP_GRACE_MS')) + 5_000;
    expect(Number(unit.get('TimeoutStopSec')![0]) * 1000).toBeGreaterThan(stopBudgetMs);
  });

  it("ExecStartPost's readiness wait succeeds once /health/ready answers 200, after 503s", async () => {
    let asked = 0;
    const server = createServer((req, res) => {
      asked += 1;
      expect(req.url).toBe('/svc-monitoring/health/ready');
      res.writeHead(asked < 3 ? 503 : 200).end('{}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      const [command, flag, script] = [...unit.get('ExecStartPost')![0]!.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
      expect([command, flag]).toEqual(['/usr/bin/node', '-e']);
      const child = spawn(process.execPath, ['-e', script!], { env: { ...process.env, SVC_MONITOR_PORT: String((server.address() as AddressInfo).port) } });
      const code = await new Promise<number | null>((r) => child.once('exit', r));
      expect(code).toBe(0);
      expect(asked).toBe(3);
    } finally {
      server.close();
    }
  });
});

// Where systemd-analyze cannot run, the skip says why.
if (why !== undefined) describe('deploy/systemd/svc-monitor.service', () => it.skip(why, () => undefined));
