import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);

describe('electron-vite build (npm run build:desktop)', () => {
  it('produces the ESM main bundle, a CommonJS preload and the desktop renderer', async () => {
    // The same build as `npm run build:desktop` (which writes out/), into a private folder so
    // that parallel test files never share one.
    const out = await mkdtemp(join(tmpdir(), 'svc-desktop-build-'));
    const at = (p: string) => join(out, p);
    await run(process.execPath, ['node_modules/electron-vite/bin/electron-vite.js', 'build', '--outDir', out, '--logLevel', 'error'], { env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' }, timeout: 240_000 });

    const main = await readFile(at('main/index.js'), 'utf8');
    expect(main).toMatch(/from "electron"/);
    expect(main).toMatch(/import\("keytar"\)/); // native: loaded at run time, not bundled
    expect(main).toContain('contextIsolation: true');

    const preloadFiles = await readdir(at('preload'));
    expect(preloadFiles).toContain('index.cjs');
    const preload = await readFile(at('preload/index.cjs'), 'utf8');
    expect(preload).toMatch(/require\("electron"\)/);
    expect(preload).not.toMatch(/^\s*(import|export)\s/m);
    expect(preload).toContain('exposeInMainWorld');
    // Only the channel names: no validation library and no services in the sandboxed preload.
    expect(preload.length).toBeLessThan(10_000);

    const html = await readFile(at('renderer/index.html'), 'utf8');
    const scripts = [...html.matchAll(/<script[^>]*src="([^"]+)"/g)].map((m) => m[1]);
    expect(scripts.length).toBeGreaterThan(0);
    expect(html).not.toMatch(/<script(?![^>]*src=)[^>]*>[^<]+<\/script>/); // no inline script (CSP)
    const assets = await readdir(at('renderer/assets'));
    expect(assets.some((f) => f.endsWith('.js'))).toBe(true);
    expect(assets.some((f) => f.endsWith('.css'))).toBe(true);
    await rm(out, { recursive: true, force: true });
  }, 300_000);
});
