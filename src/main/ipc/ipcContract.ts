import type { ApiResult } from '../../../server/src/contracts/api.js';
import type { SerializedConsoleError } from '../ConsoleError.js';
import type { ProxiedOperation } from '../api/operationParams.js';
import type { EnvironmentInput } from '../environments/environment.js';
import type { ImportMode, ImportResult, NotificationTarget, VaultStatus } from '../shared/viewTypes.js';
import type { EnvironmentStatusView } from '../environmentStatus.js';
import type { InboxFilter, InboxItem } from '../notifications/FailureInbox.js';
import type { NotificationSettings } from '../notifications/notificationSettings.js';
import type { SessionView } from '../session/sessionView.js';

/** Channel → argument tuple and result: the typed surface of the preload bridge. */
export interface IpcContract {
  'environments.list': { args: []; result: EnvironmentStatusView[] };
  'environments.add': { args: [EnvironmentInput]; result: EnvironmentStatusView };
  'environments.update': { args: [string, Partial<EnvironmentInput>]; result: EnvironmentStatusView };
  'environments.remove': { args: [string]; result: null };
  'environments.reorder': { args: [string[]]; result: null };
  'environments.export': { args: []; result: string };
  'environments.import': { args: [string, ImportMode]; result: ImportResult };
  'session.get': { args: [string]; result: SessionView };
  'session.loginPassword': { args: [string, { username: string; password: string; remember: boolean }]; result: SessionView };
  'session.loginMagic': { args: [string, string]; result: SessionView };
  'session.logout': { args: [string]; result: SessionView };
  'session.retry': { args: [string]; result: SessionView };
  'api.call': { args: [string, ProxiedOperation, Record<string, unknown>]; result: ApiResult<ProxiedOperation> };
  'inbox.list': { args: [InboxFilter]; result: InboxItem[] };
  'inbox.markRead': { args: [{ ids?: string[] } & InboxFilter]; result: number };
  'notifications.getSettings': { args: []; result: NotificationSettings };
  'notifications.setSettings': { args: [NotificationSettings]; result: null };
  'vault.status': { args: []; result: VaultStatus };
  'deepLink.open': { args: [string]; result: NotificationTarget };
  'shell.openExternal': { args: [string]; result: null };
}

/** Every invoke answers an envelope, so that error codes and problem details survive IPC. */
export type IpcResult<T> = { ok: true; value: T } | { ok: false; error: SerializedConsoleError };
