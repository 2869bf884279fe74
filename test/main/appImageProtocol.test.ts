import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { APPIMAGE_DESKTOP_FILE, registerAppImageProtocol } from '../../src/main/deepLinks/appImageProtocol.js';
import { createTempDir } from '../fixtures/main/tempDir.js';

/** The AppImage's link registration against the real xdg-mime, in a throw-away home. */
const run = promisify(execFile);
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function home() {
  const { dir, cleanup } = await createTempDir('svc-appimage-');
  cleanups.push(cleanup);
  const env = { HOME: dir, XDG_DATA_HOME: join(dir, 'data'), XDG_CONFIG_HOME: join(dir, 'config'), XDG_CURRENT_DESKTOP: '' };
  const lines: string[] = [];
  const log = { info: (m: string) => lines.push(`INFO ${m}`), warn: (m: string) => lines.push(`WARN ${m}`) };
  const register = (appImage: string | undefined, platform: NodeJS.Platform = 'linux') =>
    registerAppImageProtocol({ platform, env: { ...env, ...(appImage ? { APPIMAGE: appImage } : {}) }, scheme: 'svc-monitor', wmClass: 'svc-monitor', log });
  const handler = async () => (await run('xdg-mime', ['query', 'default', 'x-scheme-handler/svc-monitor'], { env: { ...process.env, ...env } })).stdout.trim();
  const entry = () => readFile(join(env.XDG_DATA_HOME, 'applications', APPIMAGE_DESKTOP_FILE), 'utf8');
  return { env, lines, register, handler, entry };
}

describe('the AppImage registers the svc-monitor: link handler on first run', () => {
  it('writes a hidden desktop entry that starts this AppImage with the link, and xdg-mime then names it the handler', async () => {
    const h = await home();
    // Another handler of the scheme is the default so far (an older install, say).
    await mkdir(join(h.env.XDG_DATA_HOME, 'applications'), { recursive: true });
    await writeFile(join(h.env.XDG_DATA_HOME, 'applications', 'other.desktop'), '[Desktop Entry]\nType=Application\nName=Other\nExec=/bin/true %U\nMimeType=x-scheme-handler/svc-monitor;\n');
    await run('xdg-mime', ['default', 'other.desktop', 'x-scheme-handler/svc-monitor'], { env: { ...process.env, ...h.env } });
    expect(await h.handler()).toBe('other.desktop');
    // xdg-mime only names a handler whose program exists: a real file stands for the AppImage.
    const appImage = join(h.env.HOME, 'Apps', 'svc-monitor-0.1.0-x86_64.AppImage');
    await mkdir(join(h.env.HOME, 'Apps'));
    await writeFile(appImage, '#!/bin/sh\n', { mode: 0o755 });
    expect(await h.register(appImage)).toBe('registered');
    expect(await h.handler()).toBe(APPIMAGE_DESKTOP_FILE);
    const text = await h.entry();
    expect(text).toMatch(/^\[Desktop Entry\]\n/);
    expect(text).toContain(`Exec=${appImage} %U\n`);
    expect(text).toContain('MimeType=x-scheme-handler/svc-monitor;\n');
    expect(text).toContain('NoDisplay=true\n');
    expect(text).toContain('StartupWMClass=svc-monitor\n');
    expect(h.lines.some((l) => l.startsWith('INFO registered'))).toBe(true);
  });

  it('leaves a current entry alone, and rewrites it when the AppImage has moved', async () => {
    const h = await home();
    await h.register('/opt/a/svc.AppImage');
    expect(await h.register('/opt/a/svc.AppImage')).toBe('unchanged');
    expect(await h.register('/opt/b/svc $HOME "x" 100%.AppImage')).toBe('registered');
    // A path with reserved characters is quoted by the desktop entry rules: " ` $ \ escaped,
    // backslashes doubled again, % doubled.
    expect(await h.entry()).toContain('Exec="/opt/b/svc \\\\$HOME \\\\"x\\\\" 100%%.AppImage" %U\n');
    expect(await h.handler()).toBe(APPIMAGE_DESKTOP_FILE);
  });

  it('does nothing outside an AppImage (a deb, a development run, another OS)', async () => {
    const h = await home();
    expect(await h.register(undefined)).toBe('not-an-appimage');
    expect(await h.register('/opt/a/svc.AppImage', 'darwin')).toBe('not-an-appimage');
    expect(existsSync(join(h.env.XDG_DATA_HOME, 'applications'))).toBe(false);
    expect(await h.handler()).toBe('');
  });

  it('logs, and does not throw, when xdg-mime is missing', async () => {
    const h = await home();
    const lines: string[] = [];
    const result = await registerAppImageProtocol({
      platform: 'linux',
      env: { ...h.env, APPIMAGE: '/opt/a/svc.AppImage' },
      scheme: 'svc-monitor',
      wmClass: 'svc-monitor',
      run: () => Promise.reject(new Error('spawn xdg-mime ENOENT')),
      log: { info: (m) => lines.push(m), warn: (m) => lines.push(`WARN ${m}`) },
    });
    expect(result).toBe('registered');
    expect(lines).toEqual([expect.stringMatching(/^WARN wrote .*svc-monitor-appimage\.desktop, but xdg-mime could not make it the svc-monitor: link handler: spawn xdg-mime ENOENT$/)]);
  });
});
