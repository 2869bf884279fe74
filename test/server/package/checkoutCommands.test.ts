import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../../..', import.meta.url));

describe('commands of the checkout', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-checkout-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('npx svc-monitor-server runs the workspace command', () => {
    const r = spawnSync('npx', ['--no-install', 'svc-monitor-server', '--help'], { cwd: REPO, encoding: 'utf8', timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('Usage:');
  });

  it('the command says what to do when the package is not built', () => {
    mkdirSync(join(dir, 'unbuilt', 'bin'), { recursive: true });
    copyFileSync(join(REPO, 'server', 'bin', 'svc-monitor-server.js'), join(dir, 'unbuilt', 'bin', 'svc-monitor-server.js'));
    const r = spawnSync(process.execPath, [join(dir, 'unbuilt', 'bin', 'svc-monitor-server.js'), '--help'], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('not built yet (no dist/cli.js)');
  });

  it('npm start builds only what is older than its sources', () => {
    // A miniature checkout whose builds record that they ran.
    const root = join(dir, 'mini');
    for (const d of ['scripts', 'server/src', 'server/dist', 'server/web', 'src/renderer', 'server/src/contracts']) mkdirSync(join(root, d), { recursive: true });
    copyFileSync(join(REPO, 'scripts', 'build-if-stale.mjs'), join(root, 'scripts', 'build-if-stale.mjs'));
    const record = (what: string, output: string) => `node -e "require('fs').appendFileSync('../built.txt','${what} ');require('fs').writeFileSync('${output}','')"`;
    writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'mini', private: true, workspaces: ['server'], scripts: { 'build:web': record('web', 'server/web/index.html').replace('../built.txt', 'built.txt') } }));
    writeFileSync(join(root, 'server', 'package.json'), JSON.stringify({ name: 'svc-monitor-server', version: '0.0.0', scripts: { build: record('server', 'dist/index.js') } }));
    writeFileSync(join(root, 'server', 'src', 'index.ts'), '');
    writeFileSync(join(root, 'src', 'renderer', 'main.ts'), '');
    const start = () => spawnSync(process.execPath, [join(root, 'scripts', 'build-if-stale.mjs')], { cwd: root, encoding: 'utf8', timeout: 60_000 });
    const built = () => spawnSync('cat', [join(root, 'built.txt')], { encoding: 'utf8' }).stdout.trim();

    expect(start().status).toBe(0);
    expect(built()).toBe('server web');
    const second = start();
    expect(second.stdout).toContain('server package is up to date');
    expect(second.stdout).toContain('web dashboard is up to date');
    expect(built()).toBe('server web');

    const later = new Date(Date.now() + 60_000);
    utimesSync(join(root, 'src', 'renderer', 'main.ts'), later, later);
    expect(start().status).toBe(0);
    expect(built()).toBe('server web web');
  });

  it('setup without root (or apt) names the missing packages and how to skip the step, and installs nothing', () => {
    // Stand-ins: every package reads as missing, the user is not root, sudo refuses, apt-get must not run.
    const stubs = join(dir, 'stubs');
    mkdirSync(stubs, { recursive: true });
    const stub = (name: string, body: string) => writeFileSync(join(stubs, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    stub('dpkg-query', 'exit 1');
    stub('id', '[ "$1" = "-u" ] && echo 1000 && exit 0; exec /usr/bin/id "$@"');
    stub('sudo', 'exit 1');
    stub('apt-get', 'echo "apt-get ran" >&2; exit 3');
    const r = spawnSync('bash', [join(REPO, 'scripts', 'setup')], { cwd: REPO, encoding: 'utf8', env: { ...process.env, PATH: `${stubs}:${process.env.PATH}` }, timeout: 30_000 });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('this user is not root');
    expect(r.stderr).toContain('Missing: chromium libsecret-1-dev python3 make g++ gnome-keyring dbus dbus-bin dbus-daemon');
    expect(r.stderr).toContain('SVC_MONITOR_SKIP_APT=1 npm run setup');
    expect(r.stderr).not.toContain('apt-get ran');
  });
});
