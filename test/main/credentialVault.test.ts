import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CredentialVault } from '../../src/main/credentials/CredentialVault.js';
import { KEYCHAIN_SERVICE, type KeytarLike } from '../../src/main/credentials/secretBackend.js';
import { ENCRYPTED_SECRETS_FILE } from '../../src/main/credentials/SafeStorageFileBackend.js';
import { EnvironmentStore } from '../../src/main/environments/EnvironmentStore.js';
import { aesSafeStorage } from '../fixtures/main/aesSafeStorage.js';
import { createTempDir, readAllFiles } from '../fixtures/main/tempDir.js';

const keytar = createRequire(import.meta.url)('keytar') as KeytarLike;

async function secretServiceProblem(): Promise<string | undefined> {
  try {
    await keytar.findCredentials(KEYCHAIN_SERVICE);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}
const problem = await secretServiceProblem();
const haveKeychain = problem === undefined;
const KEYRING_HELP =
  'Run the keychain tests through scripts/with-keyring.sh (npm test does: `bash scripts/with-keyring.sh npx vitest run <files>`), ' +
  'with the Debian packages gnome-keyring, dbus-x11 and libsecret-1-dev installed (npm run setup).';

const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.secret-token-value-7f3a';
const PASSWORD = 'correct horse battery staple 91';

/** Deletes every svc-monitor account left in the test keyring. */
async function clearKeychain(): Promise<void> {
  if (!haveKeychain) return;
  for (const c of await keytar.findCredentials(KEYCHAIN_SERVICE)) await keytar.deletePassword(KEYCHAIN_SERVICE, c.account);
}

async function assertNoSecretOnDisk(dir: string): Promise<void> {
  const files = await readAllFiles(dir);
  for (const f of files) {
    for (const secret of [TOKEN, PASSWORD]) {
      for (const form of [secret, Buffer.from(secret).toString('base64'), JSON.stringify(secret).slice(1, -1)]) {
        expect(f.bytes.includes(Buffer.from(form)), `${form} found in ${f.path}`).toBe(false);
      }
    }
  }
}

describe('CredentialVault with a real Secret Service (gnome-keyring through scripts/with-keyring.sh)', () => {
  // No keychain is a failure, never a skip: every test below needs one.
  it('has a Secret Service to talk to', () => {
    expect(problem, `no Secret Service answered (${problem}). ${KEYRING_HELP}`).toBeUndefined();
  });

  describe('keychain', () => {
    let dir: string;
    let cleanup: () => Promise<void>;
    beforeEach(async () => {
      if (!haveKeychain) throw new Error(`no Secret Service answered (${problem}). ${KEYRING_HELP}`);
      ({ dir, cleanup } = await createTempDir());
      await clearKeychain();
    });
    afterEach(async () => {
      await clearKeychain();
      await cleanup?.();
    });

    it('stores tokens and remembered passwords in the keychain under service svc-monitor, one account per environment', async () => {
      const vault = await CredentialVault.open({ userDataDir: dir, loadKeytar: async () => keytar, safeStorage: aesSafeStorage('gnome_libsecret') });
      expect(vault.status()).toEqual({ storage: 'keychain', migrated: 0 });
      await vault.update('env-a', { token: TOKEN, username: 'ops', password: PASSWORD, canManage: true });
      await vault.update('env-b', { token: 'other-token' });

      const raw = await keytar.getPassword(KEYCHAIN_SERVICE, 'env-a');
      expect(JSON.parse(raw!)).toMatchObject({ token: TOKEN, password: PASSWORD, username: 'ops' });
      expect((await keytar.findCredentials(KEYCHAIN_SERVICE)).map((c) => c.account).sort()).toEqual(['env-a', 'env-b']);

      const again = await CredentialVault.open({ userDataDir: dir, loadKeytar: async () => keytar });
      expect(await again.get('env-a')).toMatchObject({ token: TOKEN, password: PASSWORD, canManage: true });
      await again.update('env-a', { password: undefined });
      expect((await again.get('env-a'))?.password).toBeUndefined();
      await again.delete('env-b');
      expect(await keytar.getPassword(KEYCHAIN_SERVICE, 'env-b')).toBeNull();
      expect(await again.prune(new Set())).toBe(1);
      expect(await keytar.findCredentials(KEYCHAIN_SERVICE)).toEqual([]);
      await assertNoSecretOnDisk(dir);
    });

    it('migrates secrets from the encrypted file into the keychain once it is available: read both, verify, delete the old copy', async () => {
      const safeStorage = aesSafeStorage('gnome_libsecret');
      // First run: no keychain → encrypted file.
      const before = await CredentialVault.open({ userDataDir: dir, loadKeytar: async () => Promise.reject(new Error('no Secret Service')), safeStorage });
      expect(before.status().storage).toBe('encrypted-file');
      await before.update('env-a', { token: TOKEN, username: 'ops' });
      await before.update('env-b', { token: 'newer-in-file' });
      // The keychain already holds an older record of env-b.
      await keytar.setPassword(KEYCHAIN_SERVICE, 'env-b', JSON.stringify({ token: 'older-in-keychain', savedAt: '2000-01-01T00:00:00.000Z' }));
      const fileBefore = await readFile(join(dir, ENCRYPTED_SECRETS_FILE), 'utf8');
      expect(fileBefore).not.toContain(TOKEN);

      const after = await CredentialVault.open({ userDataDir: dir, loadKeytar: async () => keytar, safeStorage });
      expect(after.status()).toEqual({ storage: 'keychain', migrated: 2 });
      expect((await after.get('env-a'))?.token).toBe(TOKEN);
      expect((await after.get('env-b'))?.token).toBe('newer-in-file');
      // The old copy is gone: the encrypted file was deleted with its last entry.
      await expect(readFile(join(dir, ENCRYPTED_SECRETS_FILE))).rejects.toMatchObject({ code: 'ENOENT' });
      await assertNoSecretOnDisk(dir);
    });
  });
});

describe('CredentialVault fallbacks without a keychain', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ dir, cleanup } = await createTempDir()));
  afterEach(() => cleanup());
  const noKeychain = async (): Promise<KeytarLike> => {
    throw new Error('Cannot autolaunch D-Bus without X11 $DISPLAY');
  };

  it('uses a safeStorage-encrypted file when the backend is a real one, and never writes plaintext', async () => {
    const safeStorage = aesSafeStorage('gnome_libsecret');
    const vault = await CredentialVault.open({ userDataDir: dir, loadKeytar: noKeychain, safeStorage });
    expect(vault.status().storage).toBe('encrypted-file');
    expect(vault.status().reason).toMatch(/keychain is not reachable \(Cannot autolaunch D-Bus/);
    await vault.update('env-a', { token: TOKEN, username: 'ops', password: PASSWORD });
    const store = await EnvironmentStore.open(dir);
    await store.add({ name: 'Prod', baseUrl: 'https://prod.example.com', colour: '#ff0000', isProduction: true });

    const reopened = await CredentialVault.open({ userDataDir: dir, loadKeytar: noKeychain, safeStorage });
    expect(await reopened.get('env-a')).toMatchObject({ token: TOKEN, password: PASSWORD });
    // Another key (another machine/user) cannot read the file.
    const stranger = await CredentialVault.open({ userDataDir: dir, loadKeytar: noKeychain, safeStorage: aesSafeStorage('gnome_libsecret') });
    await expect(stranger.get('env-a')).rejects.toThrow();
    await assertNoSecretOnDisk(dir);
  });

  it('refuses the basic_text backend and keeps secrets in memory only, with a reason for the user', async () => {
    const vault = await CredentialVault.open({ userDataDir: dir, loadKeytar: noKeychain, safeStorage: aesSafeStorage('basic_text') });
    expect(vault.status().storage).toBe('memory');
    expect(vault.status().reason).toMatch(/basic_text backend .*plaintext.*memory for this session only/);
    await vault.update('env-a', { token: TOKEN, password: PASSWORD });
    expect((await vault.get('env-a'))?.token).toBe(TOKEN);
    expect(await readAllFiles(dir)).toEqual([]);
    const next = await CredentialVault.open({ userDataDir: dir, loadKeytar: noKeychain, safeStorage: aesSafeStorage('basic_text') });
    expect(await next.get('env-a')).toBeUndefined();
  });

  it('keeps memory only when safeStorage says encryption is unavailable or is absent', async () => {
    const unavailable = { ...aesSafeStorage('gnome_libsecret'), isEncryptionAvailable: () => false };
    const a = await CredentialVault.open({ userDataDir: dir, loadKeytar: noKeychain, safeStorage: unavailable });
    expect(a.status()).toMatchObject({ storage: 'memory', reason: expect.stringMatching(/encryption is not available/) });
    const b = await CredentialVault.open({ userDataDir: dir });
    expect(b.status()).toMatchObject({ storage: 'memory', reason: expect.stringMatching(/keytar\) is not available/) });
  });
});

