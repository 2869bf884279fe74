#!/usr/bin/env node
/**
 * `npm run smoke:electron [-- --app <path to the packaged executable>]`: starts the packaged
 * console under real Electron with Playwright and checks what a user sees first. For release
 * machines (it needs the Electron binary, which electron-builder downloads); not part of npm test.
 *
 * Playwright drives Electron through the Node inspector, which the shipped build turns off
 * (the nodeCliInspect fuse). So, without --app, this builds its own folder package for this OS
 * into release/smoke with that one fuse left on, and everything else as shipped.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { _electron as electron } from 'playwright-core';

const root = resolve(import.meta.dirname, '..');
const given = process.argv.indexOf('--app');
let executable = given > 0 ? resolve(process.argv[given + 1] ?? '') : undefined;

function fail(message) {
  console.error(`smoke: FAIL ${message}`);
  process.exit(1);
}
function check(ok, message) {
  if (!ok) fail(message);
  console.log(`smoke: ok   ${message}`);
}

if (!executable) {
  const out = join(root, 'release', 'smoke');
  rmSync(out, { recursive: true, force: true });
  for (const [command, args] of [
    ['node_modules/electron-vite/bin/electron-vite.js', ['build']],
    ['node_modules/electron-builder/cli.js', ['--dir', '--publish', 'never', '--config', 'build/electron-builder.yml', `-c.directories.output=${out}`, '-c.electronFuses.enableNodeCliInspectArguments=true', '-c.mac.identity=null']],
  ]) {
    const r = spawnSync(process.execPath, [command, ...args], { cwd: root, stdio: 'inherit' });
    if (r.status !== 0) fail(`${command} exited with ${r.status}`);
  }
  const folder = readdirSync(out).find((d) => /^(linux|win|mac)/.test(d) && !d.endsWith('.yaml'));
  if (!folder) fail(`no unpacked app in ${out}`);
  executable =
    process.platform === 'darwin' ? join(out, folder, 'Svc Monitor.app', 'Contents', 'MacOS', 'Svc Monitor') : process.platform === 'win32' ? join(out, folder, 'Svc Monitor.exe') : join(out, folder, 'svc-monitor');
}
if (!existsSync(executable)) fail(`no executable at ${executable}`);

// A fresh profile on Linux and Windows (macOS keeps ~/Library/Application Support/Svc Monitor).
const profile = mkdtempSync(join(tmpdir(), 'svc-monitor-smoke-'));
const app = await electron.launch({
  executablePath: executable,
  env: { ...process.env, XDG_CONFIG_HOME: profile, APPDATA: profile },
  timeout: 60_000,
});
try {
  const window = await app.firstWindow({ timeout: 60_000 });
  await window.waitForLoadState('domcontentloaded');
  check((await window.title()) === 'Svc Monitor', `the window is titled "Svc Monitor" (${executable})`);
  check(window.url().startsWith('app://console/'), `the renderer loads from app://console/ (${window.url()})`);
  const page = await window.evaluate(() => ({
    node: typeof globalThis.require !== 'undefined' || typeof globalThis.process !== 'undefined',
    bridge: typeof globalThis.svcMonitor === 'object',
  }));
  check(!page.node, 'the renderer has no Node globals (sandbox, context isolation)');
  check(page.bridge, 'the preload exposed the console bridge');
  await window.getByText(/environment/i).first().waitFor({ timeout: 30_000 });
  check(true, 'the environment list (or its empty state) is on screen');
  const main = await app.evaluate(({ app: a }) => ({ version: a.getVersion(), packaged: a.isPackaged, userData: a.getPath('userData') }));
  check(main.packaged, `the main process runs packaged, version ${main.version}`);
  await window.screenshot({ path: join(profile, 'first-window.png') });
  console.log(`smoke: first window screenshot: ${join(profile, 'first-window.png')}`);
} finally {
  await app.close().catch(() => undefined);
}
console.log('smoke: PASS');
