import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIpcDispatcher } from '../../src/main/ipc/ipcDispatcher.js';
import { createConsole, type RecordingConsole } from '../fixtures/main/consoleSuite.js';
import { createTempDir } from '../fixtures/main/tempDir.js';

describe('file pickers for the CA certificate and the environment list', () => {
  let dir: { dir: string; cleanup: () => Promise<void> };
  let recording: RecordingConsole;
  /** What the next dialog answers (a path, or null: cancelled). */
  let chosen: string | null = null;
  const asked: string[] = [];
  let dispatch: ReturnType<typeof createIpcDispatcher>;
  beforeAll(async () => {
    dir = await createTempDir();
    recording = await createConsole(join(dir.dir, 'ud'));
    await recording.services.addEnvironment({ name: 'Lab', baseUrl: 'https://lab.example.com', colour: '#2563eb', isProduction: false });
    dispatch = createIpcDispatcher({
      services: recording.services,
      openExternal: async () => undefined,
      files: { open: async (purpose) => (asked.push(`open:${purpose}`), chosen), save: async (name) => (asked.push(`save:${name}`), chosen) },
    });
  });
  afterAll(async () => {
    await recording?.services.dispose();
    await dir?.cleanup();
  });

  it('the CA picker answers the chosen path (the field stays editable), or null', async () => {
    chosen = '/etc/ssl/certs/company-ca.pem';
    expect(await dispatch('files.pickCaCertificate', [])).toEqual({ ok: true, value: '/etc/ssl/certs/company-ca.pem' });
    chosen = null;
    expect(await dispatch('files.pickCaCertificate', [])).toEqual({ ok: true, value: null });
    expect(asked.slice(0, 2)).toEqual(['open:ca-certificate', 'open:ca-certificate']);
  });

  it('export writes the list (no secrets) where the user saves it; import reads the chosen file; a file over 1 MB is refused', async () => {
    chosen = join(dir.dir, 'envs.json');
    expect(await dispatch('environments.exportFile', [])).toEqual({ ok: true, value: chosen });
    const written = JSON.parse(await readFile(chosen, 'utf8')) as { format: string; environments: Array<{ name: string }> };
    expect(written.format).toBe('svc-monitor-environments');
    expect(written.environments.map((e) => e.name)).toEqual(['Lab']);
    expect(await dispatch('environments.importFile', [])).toEqual({ ok: true, value: { path: chosen, text: await readFile(chosen, 'utf8') } });
    const big = join(dir.dir, 'big.json');
    await writeFile(big, 'x'.repeat(1_000_001));
    chosen = big;
    expect(await dispatch('environments.importFile', [])).toEqual({ ok: false, error: { code: 'invalid-arguments', message: `${big}: import is larger than 1 MB` } });
  });
});
