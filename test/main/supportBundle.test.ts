import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LogFile } from '../../src/main/logging/LogFile.js';
import { readLogTail, saveSupportBundle, supportBundleFileName, supportBundleText, SUPPORT_BUNDLE_FORMAT, type SupportBundleFacts } from '../../src/main/support/supportBundle.js';
import { aesSafeStorage } from '../fixtures/main/aesSafeStorage.js';
import { createConsole, type RecordingConsole } from '../fixtures/main/consoleSuite.js';
import { startFullHost, type FullHost } from '../fixtures/main/fullHost.js';
import { createTempDir } from '../fixtures/main/tempDir.js';

/** Real secrets, each planted where a support bundle gathers from; none may leave. */
const SECRETS = {
  password: 'hunter2-Environment-pw',
  proxyPassword: 'pr0xy-Planted-pw',
  apiKey: 'ak_live_Planted_51c0ffee',
  bearer: 'opaque-bearer-Planted-9f8e7d',
  basic: Buffer.from('jdoe:basic-Planted-pw').toString('base64'),
  jwt: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJvcHMiLCJwbGFudGVkIjp0cnVlfQ.c2lnbmF0dXJlLXBsYW50ZWQ',
  queryToken: 'qtoken-Planted-1234',
  urlCredential: 'urlcred-Planted-pw',
  errorToken: 'errtoken-Planted-5678',
};

describe('Help → Save support bundle: one JSON file, redacted, shown before it is saved', () => {
  let dir: { dir: string; cleanup: () => Promise<void> };
  let host: FullHost;
  let recording: RecordingConsole;
  let facts: SupportBundleFacts;
  let token: string;

  beforeAll(async () => {
    dir = await createTempDir('svc-support-bundle-');
    host = await startFullHost(dir.dir, { username: 'ops', password: SECRETS.password });
    const userData = join(dir.dir, 'user-data');
    recording = await createConsole(userData, { safeStorage: aesSafeStorage('gnome_libsecret') });
    const { services } = recording;
    const env = await services.addEnvironment({ name: 'Staging', baseUrl: host.baseUrl, colour: '#2563eb', isProduction: false });
    // A remembered login: the vault holds the password and a real token.
    await services.requireSession(env.id).loginWithPassword('ops', SECRETS.password, true);
    token = (await services.vault.get(env.id))!.token!;
    expect(token.length).toBeGreaterThan(10);
    // Settings: a hand-edited preferences file with secret fields (kept by the app as unknown fields).
    await writeFile(join(userData, 'preferences.json'), JSON.stringify({ closeToTray: true, proxy: { username: 'jdoe', password: SECRETS.proxyPassword }, apiKey: SECRETS.apiKey }));
    // The log: lines as an older version (or a crash) could have left them, written straight to the file.
    const log = new LogFile(join(userData, 'logs'));
    await writeFile(log.path, [
      '2026-11-29T00:00:00.000Z INFO session started',
      `2026-11-29T00:00:01.000Z WARN request headers: Authorization: Bearer ${SECRETS.bearer}`,
      `2026-11-29T00:00:02.000Z WARN proxy: Proxy-Authorization: Basic ${SECRETS.basic}`,
      `2026-11-29T00:00:03.000Z WARN hub: wss://127.0.0.1/svc-monitoring/hub?id=1&access_token=${SECRETS.queryToken}`,
      `2026-11-29T00:00:04.000Z ERROR login answer {"token":"${token}","expiresAt":"2026-11-29T01:00:00Z"}`,
      `2026-11-29T00:00:05.000Z WARN mirror https://jdoe:${SECRETS.urlCredential}@updates.example.com/feed unreachable`,
      '',
    ].join('\n'));
    // An error through the log (redacted there) and one that reached the list another way (raw).
    log.error('validation failed', new Error(`jwt ${SECRETS.jwt} refused`));
    facts = {
      appVersion: '0.1.0',
      packaged: true,
      versions: { electron: '39.2.0', chrome: '142.0.0.0', node: '22.20.0' },
      os: { platform: 'linux', release: '6.1.0', arch: 'x64' },
      environments: services.environments(),
      vault: services.vault.status(),
      lastErrors: [...log.recentErrors(), `token=${SECRETS.errorToken} rejected by ${host.baseUrl}`, `GET /tasks?password=${SECRETS.password} failed`],
      logFolder: log.dir,
      crashDumps: join(userData, 'Crashpad'),
      settings: {
        notifications: JSON.parse(await readFile(join(userData, 'notification-settings.json'), 'utf8').catch(() => 'null')),
        preferences: JSON.parse(await readFile(join(userData, 'preferences.json'), 'utf8')),
      },
      logTail: await readLogTail(log.path),
      now: () => new Date('2026-11-29T01:40:00.000Z'),
    };
  }, 60_000);
  afterAll(async () => {
    await recording?.services.dispose({ timeoutMs: 2_000 });
    await host?.close();
    await dir?.cleanup();
  });

  it('holds versions, settings, the environments and their states, the last errors and the log tail, and no planted secret', () => {
    const text = supportBundleText(facts);
    const bundle = JSON.parse(text) as Record<string, unknown> & { environments: Array<Record<string, unknown>>; logTail: string[]; lastErrors: string[]; settings: { preferences: Record<string, unknown> } };
    expect(bundle).toMatchObject({ format: SUPPORT_BUNDLE_FORMAT, createdAtUtc: '2026-11-29T01:40:00.000Z', app: { version: '0.1.0', versions: { electron: '39.2.0' }, update: 'Updates: unavailable in this build' } });
    expect(bundle.environments).toEqual([expect.objectContaining({ name: 'Staging', baseUrl: host.baseUrl, isProduction: false, session: 'authenticated' })]);
    expect(bundle.settings.preferences).toEqual({ closeToTray: true, proxy: { username: 'jdoe', password: '[redacted]' }, apiKey: '[redacted]' });
    // The six planted lines, then the logged error (with its stack).
    expect(bundle.logTail.length).toBeGreaterThanOrEqual(7);
    expect(bundle.logTail[0]).toBe('2026-11-29T00:00:00.000Z INFO session started');
    expect(bundle.logTail[1]).toBe('2026-11-29T00:00:01.000Z WARN request headers: Authorization: Bearer [redacted]');
    expect(bundle.logTail[2]).toBe('2026-11-29T00:00:02.000Z WARN proxy: Proxy-Authorization: Basic [redacted]');
    expect(bundle.logTail[3]).toContain('access_token=[redacted]');
    expect(bundle.logTail[5]).toContain('mirror https://updates.example.com/feed unreachable');
    expect(bundle.lastErrors).toHaveLength(3);
    expect(bundle.lastErrors[0]).toMatch(/ERROR validation failed: jwt \[redacted-jwt\] refused/);
    expect(bundle.lastErrors[1]).toBe(`token=[redacted] rejected by ${host.baseUrl}`);
    for (const [name, secret] of [...Object.entries(SECRETS), ['token', token]]) expect(text.includes(secret), `${name} leaked`).toBe(false);
  });

  it('is shown in full first; saved only after the user chose Save and a place, byte for byte what was shown; a cancel writes nothing', async () => {
    const text = supportBundleText(facts);
    const fileName = supportBundleFileName(new Date('2026-11-29T01:40:00.000Z'));
    expect(fileName).toBe('svc-monitor-support-2026-11-29T01-40-00Z.json');
    const shown: string[] = [];
    const target = join(dir.dir, fileName);
    const steps = (save: boolean) => ({
      preview: async (t: string) => (shown.push(t), save),
      choosePath: async (name: string) => join(dir.dir, name),
      write: (path: string, content: string) => writeFile(path, content),
    });
    expect(await saveSupportBundle(text, fileName, steps(false))).toBeUndefined();
    await expect(readFile(target, 'utf8')).rejects.toThrow(/ENOENT/);
    expect(await saveSupportBundle(text, fileName, steps(true))).toBe(target);
    expect(shown).toEqual([text, text]);
    expect(await readFile(target, 'utf8')).toBe(text);
  });
});
