import { afterEach, describe, expect, it } from 'vitest';
import { CredentialVault } from '../../src/main/credentials/CredentialVault.js';
import { aesSafeStorage } from '../fixtures/main/aesSafeStorage.js';
import { createTempDir } from '../fixtures/main/tempDir.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

// Linux without a keyring: secrets live in one encrypted file that every change rewrites.
async function fileVault() {
  const { dir, cleanup } = await createTempDir();
  cleanups.push(cleanup);
  const safeStorage = aesSafeStorage('gnome_libsecret'); // one key, as one login session has
  const open = () => CredentialVault.open({ userDataDir: dir, safeStorage });
  const vault = await open();
  expect(vault.status().storage).toBe('encrypted-file');
  return { vault, open };
}

describe('the encrypted secrets file under parallel writes', () => {
  it('sessions starting at once each keep their token (no write overwrites another)', async () => {
    const { vault, open } = await fileVault();
    const ids = Array.from({ length: 25 }, (_, i) => `env-${i}`);
    await Promise.all(ids.map((id) => vault.update(id, { token: `token-${id}` })));
    const reopened = await open();
    for (const id of ids) expect((await reopened.get(id))?.token, id).toBe(`token-${id}`);
  });

  it('a remembered password and a token saved at once for one environment are both kept', async () => {
    const { vault, open } = await fileVault();
    await Promise.all([vault.update('prod', { username: 'ops', password: 'pw' }), vault.update('prod', { token: 't1', expiresAt: '2030-01-01T00:00:00.000Z' }), vault.update('stg', { token: 't2' })]);
    const reopened = await open();
    expect(await reopened.get('prod')).toMatchObject({ username: 'ops', password: 'pw', token: 't1' });
    expect(await reopened.get('stg')).toMatchObject({ token: 't2' });
    await Promise.all([reopened.delete('stg'), reopened.update('prod', { token: 't3' })]);
    expect(await (await open()).get('stg')).toBeUndefined();
    expect(await (await open()).get('prod')).toMatchObject({ password: 'pw', token: 't3' });
  });
});
