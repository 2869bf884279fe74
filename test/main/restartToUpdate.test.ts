import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRecordingElectron } from '../fixtures/main/recordingElectron.js';
import { updateCheckAnswer } from '../../src/main/update/updateCheckAnswer.js';

// A console that closes to the tray (as on macOS, where closing always hides): the restart into
// a downloaded update must still close the window, or the restart does nothing.
const dir = await mkdtemp(join(tmpdir(), 'svc-restart-update-'));
const userData = join(dir, 'user-data');
await mkdir(userData, { recursive: true });
await writeFile(join(userData, 'preferences.json'), JSON.stringify({ closeToTray: true }));
const rec = createRecordingElectron(userData, process.cwd());
vi.mock('electron', () => rec.electron);

describe('restart to update', () => {
  beforeAll(async () => {
    await import('../../src/main/index.js');
    await rec.startApp();
  });
  afterAll(async () => {
    rec.emitBeforeQuit();
    await new Promise((r) => setTimeout(r, 50));
    await rm(dir, { recursive: true, force: true });
  });

  it('a close is a hide until the updater quits for an update (Squirrel.Mac closes the windows before before-quit)', () => {
    const win = rec.windows[0]!;
    let prevented = 0;
    win.emit('close', { preventDefault: () => prevented++ });
    expect(prevented).toBe(1);
    rec.nativeAutoUpdater.emit('before-quit-for-update');
    win.emit('close', { preventDefault: () => prevented++ });
    expect(prevented).toBe(1);
  });

  it('Help → Check for updates offers Restart when a version is downloaded, and only then', () => {
    const base = { currentVersion: '0.1.0' };
    expect(updateCheckAnswer({ ...base, state: 'downloaded', availableVersion: '0.2.0' })).toMatchObject({ heading: 'An update is ready to install', offersRestart: true });
    expect(updateCheckAnswer({ ...base, state: 'up-to-date' })).toMatchObject({ heading: 'Svc Monitor is up to date', offersRestart: false });
    expect(updateCheckAnswer({ ...base, state: 'downloading', availableVersion: '0.2.0' })).toMatchObject({ heading: 'An update is available', offersRestart: false });
    expect(updateCheckAnswer(undefined)).toMatchObject({ heading: 'Updates are unavailable', offersRestart: false });
  });
});
