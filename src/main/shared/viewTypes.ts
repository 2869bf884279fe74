/**
 * Types that cross the bridge and that the renderer imports: kept free of Node and Electron
 * so that the renderer's type-check (DOM only) can read them.
 */

/** Where the vault keeps secrets. */
export type SecretStorageKind = 'keychain' | 'encrypted-file' | 'memory';

export interface VaultStatus {
  storage: SecretStorageKind;
  /** Why the keychain is not used (shown to the user), absent when it is. */
  reason?: string;
  /** Accounts moved from the encrypted file into the keychain when the vault opened. */
  migrated: number;
}

/** Live-connection state of one environment's hub (the one vocabulary of the contracts). */
export type { LiveState as HubState } from '../../../server/src/contracts/liveConnection.js';

/** What a click on a notification (or the tray) opens. */
export type NotificationTarget =
  | { kind: 'task'; environmentId: string; taskId: string }
  | { kind: 'inbox'; environmentId?: string; burstId?: string }
  | { kind: 'environment'; environmentId: string }
  /** A dashboard page with its filters, e.g. `/tasks?status=Failed` (a deep link). */
  | { kind: 'route'; environmentId: string; path: string };

export type ImportMode = 'merge' | 'replace';
export interface ImportResult {
  added: number;
  updated: number;
  removedIds: string[];
}
