/** Where the vault keeps secrets. */
export type SecretStorageKind = 'keychain' | 'encrypted-file' | 'memory';

export interface VaultStatus {
  storage: SecretStorageKind;
  /** Why the keychain is not used (shown to the user), absent when it is. */
  reason?: string;
  /** Accounts moved from the encrypted file into the keychain when the vault opened. */
  migrated: number;
}
