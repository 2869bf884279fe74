import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledScript } from '../../fixtures/bundledScript.js';
import { runCli, startCli } from '../../fixtures/server/cliProcess.js';
import { waitFor } from '../../fixtures/waitFor.js';

// The CLI's logs as a collector reads them: JSON lines on a pipe, never a secret.

const SECRETS = {
  SVC_MONITOR_JWT_SECRET: 'jwt-secret-value-0123456789-abcdefghij',
  SVC_MONITOR_PASSWORD: 'read-password-Zoë-2026',
  SVC_MONITOR_MAGIC_LINK_TOKEN: 'magic-link-token-0123456789-abcdefghijkl',
  SVC_MONITOR_METRICS_TOKEN: 'metrics-token-0123456789',
};
const WEBHOOK_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const WEBHOOK_URL = 'https://hooks.slack.example/services/T000/B000/credential-in-path-XYZ';

describe('svc-monitor-server logs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-logs-'));
  const db = join(dir, 'tasks.db');
  beforeAll(() => {
    const r = spawnSync(process.execPath, [bundledScript(fileURLToPath(new URL('../../fixtures/server/writeSampleDatabase.ts', import.meta.url))), db], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(r.stderr);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes JSON lines on a pipe (level, time, message, request status and latency) and never a password, token or webhook secret', async () => {
    const env = { ...SECRETS, SVC_MONITOR_ALERTS: JSON.stringify([{ on: 'ScheduleHalted', webhook: { url: WEBHOOK_URL, secret: WEBHOOK_SECRET, attempts: 1 } }]) };
    const cli = await startCli(['serve', '--db', db, '--port', '0'], env);
    try {
      const api = `${cli.baseUrl}/svc-monitoring/api`;
      const login = await fetch(`${api}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: SECRETS.SVC_MONITOR_PASSWORD }) });
      expect(login.status).toBe(200);
      const { token } = (await login.json()) as { token: string };
      expect((await fetch(`${api}/tasks`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
      expect((await fetch(`${api}/auth/magic`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: SECRETS.SVC_MONITOR_MAGIC_LINK_TOKEN }) })).status).toBe(200);
      expect((await fetch(`${api}/auth/magic?token=${SECRETS.SVC_MONITOR_MAGIC_LINK_TOKEN}`)).status).toBe(200);
      expect((await fetch(`${cli.baseUrl}/svc-monitoring/metrics`, { headers: { authorization: `Bearer ${SECRETS.SVC_MONITOR_METRICS_TOKEN}` } })).status).toBe(200);
      expect((await fetch(`${api}/tasks`, { headers: { authorization: 'Bearer not-a-token' } })).status).toBe(401);
      await waitFor(() => (cli.output().match(/request completed/g) ?? []).length >= 6, 10_000, 'six request lines');
      cli.child.kill('SIGTERM');
      await cli.exited;
      const out = cli.output();

      const lines = out.split('\n').filter((l) => l.trim() !== '');
      const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      for (const e of entries) {
        expect(e).toMatchObject({ level: expect.any(Number), time: expect.any(Number), msg: expect.any(String), pid: expect.any(Number) });
      }
      expect(entries.some((e) => /^Dashboard: http:/.test(String(e.msg)))).toBe(true);
      const requests = entries.filter((e) => e.msg === 'request completed') as Array<{ req: { method: string; url: string }; res: { statusCode: number }; responseTimeMs: number }>;
      expect(requests.map((r) => `${r.req.method} ${r.res.statusCode}`)).toEqual(expect.arrayContaining(['POST 200', 'GET 200', 'GET 401']));
      for (const r of requests) expect(r.responseTimeMs).toBeGreaterThanOrEqual(0);
      expect(requests.find((r) => r.req.url.startsWith('/svc-monitoring/api/auth/magic?'))!.req.url).toBe('/svc-monitoring/api/auth/magic?token=%5Bredacted%5D');

      for (const secret of [...Object.values(SECRETS), WEBHOOK_SECRET, WEBHOOK_URL, token, 'not-a-token']) expect(out, secret).not.toContain(secret);
      expect(out).not.toMatch(/authorization|bearer/i);
    } finally {
      cli.child.kill('SIGKILL');
    }
  });

  it('--log-format text writes human lines: time, level, message, then the fields', async () => {
    const text = await startCli(['serve', '--db', db, '--port', '0', '--log-format', 'text']);
    try {
      await fetch(`${text.baseUrl}/svc-monitoring/api/config`);
      await waitFor(() => /request completed/.test(text.output()), 10_000, 'a request line');
      const line = text.output().split('\n').find((l) => l.includes('request completed'))!;
      expect(line).toMatch(/^\d{4}-\d\d-\d\dT\S+Z INFO  request completed {2}req=\{"method":"GET","url":"\/svc-monitoring\/api\/config".*res=\{"statusCode":\d{3}\} responseTimeMs=/);
      expect(text.output()).toMatch(/^\S+ INFO  Dashboard: http:/m);
    } finally {
      text.child.kill('SIGKILL');
    }
  });

  it.each([
    [['--log-format', 'xml'], {}, /option "logFormat" must be one of json, pretty, text \(got "xml"; --log-format, SVC_MONITOR_LOG_FORMAT\)/],
    [[], { SVC_MONITOR_LOG_LEVEL: 'loud' }, /option "logLevel" must be one of fatal, error, warn, info, debug, trace, silent \(got "loud"/],
  ])('a bad %j %j fails at startup naming the option (exit 2)', async (args, env, message) => {
    const r = await runCli(['serve', '--db', db, ...(args as string[])], env as Record<string, string>);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message as RegExp);
  });
});
