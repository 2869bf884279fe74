import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../files/writeFileAtomic.js';
import { Serial } from '../lifecycle/Serial.js';
import type { SafeStorageLike, SecretBackend } from './secretBackend.js';

export const ENCRYPTED_SECRETS_FILE = 'credentials.enc.json';

/**
 * Secrets encrypted with Electron's `safeStorage` in one file under user-data. Only usable
 * when safeStorage says encryption is available and its Linux backend is not `basic_text`
 * (that one encrypts with a fixed, public password: plaintext in effect).
 */
export class SafeStorageFileBackend implements SecretBackend {
  readonly kind = 'encrypted-file' as const;
  readonly file: string;
  /** Every change reads, changes and rewrites the one file: one at a time, or a change is lost. */
  private readonly changes = new Serial();

  constructor(private readonly safeStorage: SafeStorageLike, userDataDir: string) {
    this.file = join(userDataDir, ENCRYPTED_SECRETS_FILE);
  }

  /** `undefined` when usable, else the reason it is not. */
  static unusableReason(safeStorage: SafeStorageLike | undefined): string | undefined {
    if (!safeStorage) return 'Electron safeStorage is not available';
    if (!safeStorage.isEncryptionAvailable()) return 'Electron safeStorage reports that encryption is not available';
    const backend = safeStorage.getSelectedStorageBackend?.();
    if (backend === 'basic_text') {
      return 'Electron safeStorage would use its basic_text backend (a fixed, public key: effectively plaintext)';
    }
    return undefined;
  }

  async get(account: string): Promise<string | null> {
    const entries = await this.read();
    const value = entries[account];
    if (value === undefined) return null;
    return this.safeStorage.decryptString(Buffer.from(value, 'base64'));
  }
  set(account: string, secret: string): Promise<void> {
    return this.changes.run(async () => {
      const entries = await this.read();
      entries[account] = this.safeStorage.encryptString(secret).toString('base64');
      await this.write(entries);
    });
  }
  delete(account: string): Promise<boolean> {
    return this.changes.run(async () => {
      const entries = await this.read();
      if (!(account in entries)) return false;
      delete entries[account];
      await this.write(entries);
      return true;
    });
  }
  async accounts(): Promise<string[]> {
    return Object.keys(await this.read());
  }

  private async read(): Promise<Record<string, string>> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw err;
    }
    const parsed = JSON.parse(text) as { version?: number; entries?: Record<string, string> };
    return parsed.entries && typeof parsed.entries === 'object' ? { ...parsed.entries } : {};
  }
  private async write(entries: Record<string, string>): Promise<void> {
    if (Object.keys(entries).length === 0) {
      await rm(this.file, { force: true });
      return;
    }
    await writeFileAtomic(this.file, JSON.stringify({ version: 1, entries }), 0o600);
  }
}
