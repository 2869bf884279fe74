import type { ApiResult } from '../../server/src/contracts/api.js';
import type { SerializedConsoleError } from './consoleError.js';
import type { EnvironmentInput, EnvironmentPatch, ImportMode, ImportResult } from './environment.js';
import type { EnvironmentStatusView } from './environmentStatus.js';
import type { InboxFilter, InboxItem, InboxMarkRead } from './inbox.js';
import type { NotificationSettings, NotificationTarget } from './notifications.js';
import type { ManagementAction, ProxiedOperation } from './proxiedOperations.js';
import type { PasswordLogin, SessionView } from './session.js';
import type { RendererEvent } from './rendererEvents.js';
import type { ProxyLoginAnswer } from './proxyLogin.js';
import type { VaultStatus } from './vault.js';
import type { EnvironmentsSummary } from './environmentsSummary.js';
import type { SearchAnswer } from './search.js';

/** Argument tuple and result of one channel (types only; the value is an empty object). */
export interface IpcChannelSpec<Args extends unknown[], Result> {
  readonly __args?: Args;
  readonly __result?: Result;
}

function channel<Args extends unknown[], Result>(): IpcChannelSpec<Args, Result> {
  return {};
}

/**
 * Every channel of the preload bridge with its argument tuple and result: the one list the
 * preload exposes, the renderer calls and main's channel table (schema + handler per channel)
 * must cover exactly. Adding a channel: one line here, its entry in main's table, the call site.
 */
export const IPC_CHANNELS = {
  'environments.list': channel<[], EnvironmentStatusView[]>(),
  'environments.add': channel<[input: EnvironmentInput], EnvironmentStatusView>(),
  'environments.update': channel<[environmentId: string, patch: EnvironmentPatch], EnvironmentStatusView>(),
  'environments.remove': channel<[environmentId: string], null>(),
  'environments.reorder': channel<[environmentIds: string[]], null>(),
  'environments.export': channel<[], string>(),
  'environments.import': channel<[json: string, mode: ImportMode, confirmed?: boolean], ImportResult>(),
  /** Every environment's health, failures, oldest waiting task and halted schedules, gathered now (one row each). */
  'environments.summary': channel<[], EnvironmentsSummary>(),
  /** One environment's answer to a search by task id, type, key or failure fingerprint (the renderer asks every environment at once). */
  'search.environment': channel<[environmentId: string, text: string], SearchAnswer>(),
  'session.get': channel<[environmentId: string], SessionView>(),
  'session.loginPassword': channel<[environmentId: string, login: PasswordLogin], SessionView>(),
  'session.loginMagic': channel<[environmentId: string, token: string], SessionView>(),
  /** Single sign-on in the system browser (RFC 8252 loopback); resolves once the browser came back. */
  'session.loginSingleSignOn': channel<[environmentId: string], SessionView>(),
  'session.logout': channel<[environmentId: string], SessionView>(),
  'session.retry': channel<[environmentId: string], SessionView>(),
  'api.call': channel<[environmentId: string, operation: ProxiedOperation, params: Record<string, unknown>], ApiResult<ProxiedOperation>>(),
  /** A management action the user confirmed; for a production environment `confirmation` is the name they typed. */
  'api.manage': channel<[environmentId: string, operation: ManagementAction, params: Record<string, unknown>, confirmation: string], ApiResult<ProxiedOperation>>(),
  'inbox.list': channel<[filter: InboxFilter], InboxItem[]>(),
  'inbox.markRead': channel<[which: InboxMarkRead], number>(),
  /** Acknowledges the given items (and so marks them read): how many changed. */
  'inbox.acknowledge': channel<[ids: string[]], number>(),
  /** A save dialog, then the whole inbox written there as CSV: the path, or null. */
  'inbox.exportFile': channel<[], string | null>(),
  /** The shareable `svc-monitor:` link to a task of an environment. */
  'deepLink.taskLink': channel<[environmentId: string, taskId: string], string>(),
  'notifications.getSettings': channel<[], NotificationSettings>(),
  'notifications.setSettings': channel<[settings: NotificationSettings], null>(),
  'vault.status': channel<[], VaultStatus>(),
  'deepLink.open': channel<[url: string], NotificationTarget>(),
  /** A file picker for an environment's CA certificate: the chosen path, or null. */
  'files.pickCaCertificate': channel<[], string | null>(),
  /** A file picker for an exported environment list: its path and text, or null. */
  'environments.importFile': channel<[], { path: string; text: string } | null>(),
  /** A save dialog, then the environment list written there: the path, or null. */
  'environments.exportFile': channel<[], string | null>(),
  /** The user's answer to a proxy's credential prompt (null: cancelled). */
  'proxy.answer': channel<[id: string, answer: ProxyLoginAnswer | null], null>(),
  /** The renderer has started: what to open that arrived before it listened (a deep link, a notification click), if anything. */
  'window.ready': channel<[], NotificationTarget | null>(),
  'shell.openExternal': channel<[url: string], null>(),
} as const;

export type IpcChannelName = keyof typeof IPC_CHANNELS;
export const IPC_CHANNEL_NAMES = Object.keys(IPC_CHANNELS) as IpcChannelName[];

/** The argument tuple of a channel. */
export type IpcArgs<C extends IpcChannelName> = (typeof IPC_CHANNELS)[C] extends IpcChannelSpec<infer A, unknown> ? A : never;
/** The result of a channel. */
export type IpcValue<C extends IpcChannelName> = (typeof IPC_CHANNELS)[C] extends IpcChannelSpec<unknown[], infer R> ? R : never;

/** Every invoke answers an envelope, so that error codes and problem details survive IPC. */
export type IpcResult<T> = { ok: true; value: T } | { ok: false; error: SerializedConsoleError };

/** Prefix of every invoke channel on the wire. */
export const IPC_PREFIX = 'svc-monitor:';
/** The one channel main uses to push RendererEvents. */
export const RENDERER_EVENT_CHANNEL = 'svc-monitor:event';
/** Name of the bridge on `window`. */
export const BRIDGE_GLOBAL = 'svcMonitor';

/**
 * The one object the preload exposes on `window.svcMonitor`. Every call answers an envelope
 * (`{ok, value}` or `{ok:false, error}` with a code, message, HTTP status and problem details)
 * because Electron keeps only the message of a thrown error.
 */
export interface DesktopBridge {
  invoke<C extends IpcChannelName>(channel: C, ...args: IpcArgs<C>): Promise<IpcResult<IpcValue<C>>>;
  onEvent(listener: (event: RendererEvent) => void): () => void;
  /** `process.platform` of the machine (for Cmd vs Ctrl labels). */
  readonly platform: string;
}
