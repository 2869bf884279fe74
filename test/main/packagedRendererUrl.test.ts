import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRecordingElectron } from '../fixtures/main/recordingElectron.js';
import { devServerUrlFor } from '../../src/main/window/devServerUrl.js';

// A packaged app started with ELECTRON_RENDERER_URL pointing at a foreign page: the page must
// get neither the window nor the bridge (its origin is not on the IPC allow-list).
const dir = await mkdtemp(join(tmpdir(), 'svc-packaged-url-'));
const rec = createRecordingElectron(join(dir, 'user-data'), process.cwd(), { packaged: true });
vi.mock('electron', () => rec.electron);
const EVIL = 'http://127.0.0.1:9/evil';

describe('a packaged app ignores ELECTRON_RENDERER_URL', () => {
  beforeAll(async () => {
    process.env['ELECTRON_RENDERER_URL'] = EVIL;
    await import('../../src/main/index.js');
    await rec.startApp();
  });
  afterAll(async () => {
    delete process.env['ELECTRON_RENDERER_URL'];
    rec.emitBeforeQuit();
    await new Promise((r) => setTimeout(r, 50));
    await rm(dir, { recursive: true, force: true });
  });

  it('loads its own renderer and refuses the bridge to the named page', async () => {
    expect(rec.windows[0]!.loadedUrl).toBe('app://console/');
    const status = rec.ipcHandlers.get('svc-monitor:vault.status')!;
    expect(await status({ senderFrame: { url: `${EVIL}/`, parent: null } })).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(await status({ senderFrame: { url: 'app://console/', parent: null } })).toMatchObject({ ok: true });
    // Navigation to the named page is refused like any other foreign page.
    let prevented = 0;
    rec.windows[0]!.webContents.emit('will-navigate', { preventDefault: () => prevented++ }, `${EVIL}/`);
    expect(prevented).toBe(1);
  });

  it('in development the variable is used; packaged it is ignored and said so', () => {
    const warnings: string[] = [];
    expect(devServerUrlFor({ packaged: false, env: { ELECTRON_RENDERER_URL: 'http://localhost:5173' } })).toBe('http://localhost:5173');
    expect(devServerUrlFor({ packaged: true, env: { ELECTRON_RENDERER_URL: 'http://localhost:5173' }, warn: (m) => warnings.push(m) })).toBeUndefined();
    expect(warnings).toEqual(['ELECTRON_RENDERER_URL is ignored: a packaged app loads only its own renderer']);
    expect(devServerUrlFor({ packaged: false, env: {} })).toBeUndefined();
  });
});
