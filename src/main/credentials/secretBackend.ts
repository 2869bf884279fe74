import type { SecretStorageKind } from '../../shared/vault.js';

/** A place that stores one opaque secret string per account. */
export interface SecretBackend {
  readonly kind: SecretStorageKind;
  get(account: string): Promise<string | null>;
  set(account: string, secret: string): Promise<void>;
  delete(account: string): Promise<boolean>;
  accounts(): Promise<string[]>;
}

/** The part of keytar the vault uses (injected; keytar is loaded lazily by the wiring). */
export interface KeytarLike {
  getPassword(service: string, account: string): Promise<string | null>;
  setPassword(service: string, account: string, password: string): Promise<void>;
  deletePassword(service: string, account: string): Promise<boolean>;
  findCredentials(service: string): Promise<Array<{ account: string; password: string }>>;
}

/** The part of Electron's `safeStorage` the vault uses. */
export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  /** Linux only in Electron; absent elsewhere (macOS Keychain / Windows DPAPI keys). */
  getSelectedStorageBackend?(): string;
  encryptString(plainText: string): Buffer;
  decryptString(encrypted: Buffer): string;
}

export const KEYCHAIN_SERVICE = 'svc-monitor';
