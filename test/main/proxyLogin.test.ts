import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RendererEvent } from '../../src/shared/rendererEvents.js';
import { aesSafeStorage } from '../fixtures/main/aesSafeStorage.js';
import { createConsole, type RecordingConsole } from '../fixtures/main/consoleSuite.js';
import { waitFor } from '../fixtures/waitFor.js';
import { createTempDir } from '../fixtures/main/tempDir.js';

describe('a proxy that asks for credentials (407)', () => {
  let dir: { dir: string; cleanup: () => Promise<void> };
  let recording: RecordingConsole;
  const prompts: Array<Extract<RendererEvent, { type: 'proxyLogin' }>['request']> = [];
  beforeAll(async () => {
    dir = await createTempDir();
    recording = await createConsole(dir.dir, { safeStorage: aesSafeStorage('gnome_libsecret') });
    recording.services.onEvent((e) => e.type === 'proxyLogin' && prompts.push(e.request));
  });
  afterAll(async () => {
    await recording?.services.dispose();
    await dir?.cleanup();
  });
  const proxy = { host: 'proxy.corp', port: 3128, realm: 'Corp proxy', scheme: 'basic' };

  it('prompts naming the proxy; two requests share the prompt; "remember" keeps the credentials in the vault', async () => {
    const { services } = recording;
    const first = services.proxyLogin.credentials(proxy);
    const second = services.proxyLogin.credentials(proxy);
    await waitFor(() => prompts.length === 1, 10_000, 'the prompt', 25);
    expect(prompts[0]).toEqual({ id: expect.any(String), proxy: 'proxy.corp:3128', realm: 'Corp proxy', scheme: 'basic', retry: false });
    services.answerProxyLogin(prompts[0]!.id, { username: 'jdoe', password: 'pr0xy-pw', remember: true });
    expect(await first).toEqual({ username: 'jdoe', password: 'pr0xy-pw' });
    expect(await second).toEqual({ username: 'jdoe', password: 'pr0xy-pw' });
    expect(await services.vault.get('proxy:proxy.corp:3128')).toMatchObject({ username: 'jdoe', password: 'pr0xy-pw' });
  });

  it('asks again, saying so, when the proxy refuses them (and forgets them); a cancel answers nothing', async () => {
    const { services } = recording;
    const again = services.proxyLogin.credentials(proxy);
    await waitFor(() => prompts.length === 2, 10_000, 'the second prompt', 25);
    expect(prompts[1]).toMatchObject({ proxy: 'proxy.corp:3128', retry: true });
    expect(await services.vault.get('proxy:proxy.corp:3128')).toBeUndefined();
    services.answerProxyLogin(prompts[1]!.id, null);
    expect(await again).toBeNull();
    expect(() => services.answerProxyLogin('p999', null)).toThrow(/No proxy login prompt "p999" is open/);
  });
});
