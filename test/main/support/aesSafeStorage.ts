import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SafeStorageLike } from '../../../src/main/credentials/secretBackend.js';

/**
 * Electron's safeStorage cannot run here (no Electron binary). This is the same contract
 * done the way Electron does it on a desktop: AES with a key the OS keeps (here: a random
 * key held in memory), and a selectable Linux backend name.
 */
export function aesSafeStorage(backend: string, key: Buffer = randomBytes(32)): SafeStorageLike & { key: Buffer } {
  return {
    key,
    isEncryptionAvailable: () => true,
    getSelectedStorageBackend: () => backend,
    encryptString(plain: string): Buffer {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return Buffer.concat([Buffer.from('v10'), iv, cipher.getAuthTag(), body]);
    },
    decryptString(data: Buffer): string {
      const iv = data.subarray(3, 15);
      const tag = data.subarray(15, 31);
      const decipher = createDecipheriv('aes-256-gcm', key, iv);
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(data.subarray(31)), decipher.final()]).toString('utf8');
    },
  };
}
