import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledScript } from '../../fixtures/bundledScript.js';
import { runCli, startCli } from '../../fixtures/server/cliProcess.js';

/** A database written by a separate process (its own connection, then closed). */
function writeDatabaseInChildProcess(file: string): void {
  const r = spawnSync(process.execPath, [bundledScript(fileURLToPath(new URL('../../fixtures/server/writeSampleDatabase.ts', import.meta.url))), file], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
}

describe('svc-monitor-server serve', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
  const db = join(dir, 'tasks.db');
  beforeAll(() => writeDatabaseInChildProcess(db));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const writeFile = (name: string, text: string): string => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it('--help lists every option with its flag and environment variable', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    for (const name of ['--jwt-secret', 'SVC_MONITOR_JWT_SECRET', '--allowed-ip-addresses', '--enable-management-endpoints', '--magic-link-token', '--login-rate-limit', '--config', '--db', '--port', 'demo', 'serve', '--enable-ui', 'SVC_MONITOR_ENABLE_UI', '--enable-open-api-document']) {
      expect(r.stdout).toContain(name);
    }
    expect(r.stdout).not.toContain('--enable-u-i');
  });

  it.each([
    [['serve', '--db', db, '--bogus'], /Unknown flag "--bogus"/],
    [['serve'], /needs --db/],
    [['serve', '--db', '/nonexistent/x.db'], /not found/],
    [['serve', '--db', db, '--port'], /needs a value/],
    [['serve', '--db', db, '--port', 'eighty'], /"port" must be a number/],
    [['serve', '--db', db, '--jwt-expiration-hours', '-3'], /"jwtExpirationHours"/],
    [['serve', '--db', db, '--allowed-ip-addresses', '10.0.0.0/99'], /"allowedIpAddresses"/],
    [['launch'], /Unknown command "launch"/],
    [['serve', '--db', db, '--enable-ui=maybe'], /enableUI/],
    [['serve', '--db', db, '--drain-delay-ms=-5'], /"drainDelayMs" must be an integer in 0\.\.3600000/],
    [['serve', '--db', db, '--stop-grace-ms', '2.5'], /"stopGraceMs" must be an integer/],
  ])('%j → exit 2 with a clear message', async (args, message) => {
    const r = await runCli(args as string[]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message as RegExp);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  // One CLI run per case: each starts a node process, and on a loaded machine several in one test
  // added up to the test's time limit.
  it.each([
    ['malformed config', () => ['serve', '--db', db, '--config', writeFile('bad.json', '{ "username": ')], {}, /not valid JSON/],
    ['unknown config key', () => ['serve', '--db', db, '--config', writeFile('unknown.json', '{ "usrname": "x" }')], {}, /unknown option "usrname"/],
    ['non-database file', () => ['serve', '--db', writeFile('not.db', 'hello, this is not sqlite')], {}, /Cannot open/],
    ['bad environment value', () => ['serve', '--db', db], { SVC_MONITOR_ENABLE_CORS: 'perhaps' }, /SVC_MONITOR_ENABLE_CORS/],
    // options are checked before the database is opened (and before the server's modules load)
    ['bad option and a non-database file', () => ['serve', '--db', writeFile('not2.db', 'not sqlite either'), '--allowed-ip-addresses', '10.0.0.0/99'], {}, /"allowedIpAddresses"/],
  ] as const)('%s → exit 2 with a clear message', async (_case, args, env, message) => {
    const r = await runCli(args(), env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('serves the database standalone: config < env < flags; no hub; management NotSupported; SIGTERM stops', async () => {
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ username: 'from-config', password: 'config-pw', enableManagementEndpoints: true, managementUsername: 'ops', managementPassword: 'ops-pw', jwtSecret: 'c'.repeat(40) }));
    const app = await startCli(['serve', '--db', db, '--port', '0', '--config', config, '--password', 'flag-pw'], {
      SVC_MONITOR_USERNAME: 'from-env',
      SVC_MONITOR_PASSWORD: 'env-pw',
      SVC_MONITOR_ALLOWED_IP_ADDRESSES: '127.0.0.1,::1',
    });
    try {
      const api = `${app.baseUrl}/svc-monitoring/api`;
      const login = async (username: string, password: string) =>
        fetch(`${api}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) });
      expect((await login('from-config', 'config-pw')).status).toBe(401);
      expect((await login('from-env', 'env-pw')).status).toBe(401);
      const ok = await login('from-env', 'flag-pw');
      expect(ok.status).toBe(200);
      const token = ((await ok.json()) as { token: string }).token;
      const counts = await fetch(`${api}/tasks/counts`, { headers: { authorization: `Bearer ${token}` } });
      expect(await counts.json()).toEqual({ all: 25, standard: 25, recurring: 0, failed: 5, occurrences: 0 });
      const list = await fetch(`${api}/tasks?taskType=Job1`, { headers: { authorization: `Bearer ${token}` } });
      expect(((await list.json()) as { totalCount: number }).totalCount).toBe(8);
      expect((await fetch(`${app.baseUrl}/svc-monitoring/hub/negotiate`, { method: 'POST' })).status).toBe(404);
      const ops = (await (await login('ops', 'ops-pw')).json()) as { token: string; canManage: boolean };
      expect(ops.canManage).toBe(true);
      const m = await fetch(`${api}/management/tasks/00000000-0000-0000-0000-000000000001/requeue`, { method: 'POST', headers: { authorization: `Bearer ${ops.token}` } });
      expect(m.status).toBe(501);
      app.child.kill('SIGTERM');
      expect(await app.exited).toBe(0);
    } finally {
      app.child.kill('SIGKILL');
    }
  });
});
