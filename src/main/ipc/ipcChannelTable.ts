import { readFile, stat } from 'node:fs/promises';
import { z } from 'zod';
import { ConsoleError } from '../ConsoleError.js';
import { writeFileAtomic } from '../files/writeFileAtomic.js';
import type { IpcArgs, IpcChannelName, IpcValue } from '../../shared/ipcContract.js';
import { PROXIED_OPERATIONS } from '../api/operationParams.js';
import { MANAGEMENT_ACTIONS } from '../../shared/proxiedOperations.js';
import type { ConsoleServices } from '../ConsoleServices.js';
import { environmentInputSchema, environmentPatchSchema } from '../environments/environment.js';
import { notificationSettingsSchema } from '../notifications/notificationSettings.js';
import type { Assert, SchemaMatches } from '../schemaMatches.js';
import { inboxCsv } from '../inbox/inboxCsv.js';
import { SEARCH_MAX_LENGTH, searchEnvironment } from '../search/searchEnvironment.js';

/** What a channel's handler works with. */
export interface IpcHandlerContext {
  services: ConsoleServices;
  /** Opens an http(s) address in the user's browser (Electron `shell.openExternal` behind the navigation policy). */
  openExternal(url: string): Promise<void>;
  /** The system's file dialogs (Electron `dialog`); absent where there is no window (tests that do not need them). */
  files?: FileDialogs;
}

/** The file dialogs the channels open: the chosen path, or null when cancelled. */
export interface FileDialogs {
  open(purpose: 'ca-certificate' | 'environments'): Promise<string | null>;
  save(defaultName: string): Promise<string | null>;
}

/** An import file larger than this is refused (the same limit as a pasted list). */
const IMPORT_MAX_BYTES = 1_000_000;

function dialogs(context: IpcHandlerContext): FileDialogs {
  if (!context.files) throw new ConsoleError('not-found', 'No file dialogs here');
  return context.files;
}

/** One channel: the exact argument tuple main accepts, and what runs once it is accepted. */
export interface IpcChannelEntry<C extends IpcChannelName> {
  args: z.ZodTuple;
  handle(context: IpcHandlerContext, ...args: IpcArgs<C>): IpcValue<C> | Promise<IpcValue<C>>;
}

/** One entry per channel of the shared contract, no more. */
export type IpcChannelTable = { readonly [C in IpcChannelName]: IpcChannelEntry<C> };

const environmentId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be an environment id');
const httpUrl = z
  .string()
  .max(4096)
  .refine((v) => {
    try {
      const u = new URL(v);
      return u.protocol === 'http:' || u.protocol === 'https:';
    } catch {
      return false;
    }
  }, 'must be an http(s) URL');
const burstId = z.string().max(40);

/**
 * Every IPC channel: its argument schema (a tuple: a missing, extra or mistyped argument is
 * refused before any handler runs) and its handler. The dispatcher, the `ipcMain` wiring and
 * the tests read this table; the preload and the renderer read the shared contract, which
 * the type-check holds this table to (one entry per channel, each schema inferring exactly
 * the channel's argument types).
 */
export const IPC_CHANNEL_TABLE = {
  'environments.list': { args: z.tuple([]), handle: ({ services }) => services.environments() },
  'environments.add': { args: z.tuple([environmentInputSchema]), handle: ({ services }, input) => services.addEnvironment(input) },
  'environments.update': { args: z.tuple([environmentId, environmentPatchSchema]), handle: ({ services }, id, patch) => services.updateEnvironment(id, patch) },
  'environments.remove': { args: z.tuple([environmentId]), handle: async ({ services }, id) => (await services.removeEnvironment(id), null) },
  'environments.reorder': { args: z.tuple([z.array(environmentId).max(1000)]), handle: async ({ services }, ids) => (await services.store.reorder(ids), null) },
  'environments.export': { args: z.tuple([]), handle: ({ services }) => services.store.exportJson() },
  'environments.import': {
    args: z.tuple([z.string().max(1_000_000, 'import is larger than 1 MB'), z.enum(['merge', 'replace']), z.boolean().optional()]),
    handle: ({ services }, json, mode, confirmed) => services.importEnvironments(json, mode, confirmed === true),
  },
  'environments.summary': { args: z.tuple([]), handle: ({ services }) => services.summary.refresh() },
  'search.environment': {
    args: z.tuple([environmentId, z.string().max(SEARCH_MAX_LENGTH, `the search is longer than ${SEARCH_MAX_LENGTH} characters`)]),
    handle: ({ services }, id, text) => searchEnvironment((env, operation, params) => services.callApi(env, operation, params), id, text),
  },
  'session.get': { args: z.tuple([environmentId]), handle: ({ services }, id) => services.requireSession(id).view() },
  'session.loginPassword': {
    args: z.tuple([environmentId, z.strictObject({ username: z.string().min(1).max(200), password: z.string().min(1).max(1000), remember: z.boolean() })]),
    handle: ({ services }, id, login) => services.requireSession(id).loginWithPassword(login.username, login.password, login.remember),
  },
  'session.loginMagic': { args: z.tuple([environmentId, z.string().min(1).max(1000)]), handle: ({ services }, id, token) => services.requireSession(id).loginWithMagicToken(token) },
  // The system browser opens the environment's own sign-in address (the navigation policy allows environments' origins).
  'session.loginSingleSignOn': { args: z.tuple([environmentId]), handle: ({ services, openExternal }, id) => services.requireSession(id).loginWithSingleSignOn(openExternal) },
  'session.logout': { args: z.tuple([environmentId]), handle: ({ services }, id) => services.requireSession(id).logout() },
  // Re-reads `/config` and the stored token (the "review" action after an error).
  'session.retry': { args: z.tuple([environmentId]), handle: ({ services }, id) => services.requireSession(id).start() },
  // The operation's own parameters are validated by the proxy against its schema.
  'api.call': {
    args: z.tuple([environmentId, z.enum(PROXIED_OPERATIONS), z.record(z.string(), z.unknown())]),
    handle: ({ services }, id, operation, params) => services.callApi(id, operation, params),
  },
  'api.manage': {
    args: z.tuple([environmentId, z.enum(MANAGEMENT_ACTIONS), z.record(z.string(), z.unknown()), z.string().max(200)]),
    handle: ({ services }, id, operation, params, confirmation) => services.manage(id, operation, params, confirmation),
  },
  'inbox.list': {
    args: z.tuple([z.strictObject({ environmentId: environmentId.optional(), burstId: burstId.optional(), unreadOnly: z.boolean().optional() })]),
    handle: ({ services }, filter) => services.inbox.list(filter),
  },
  'inbox.markRead': {
    args: z.tuple([z.strictObject({ ids: z.array(z.string().max(40)).max(10_000).optional(), environmentId: environmentId.optional(), burstId: burstId.optional() })]),
    handle: ({ services }, { ids, ...filter }) => services.inbox.markRead(ids, filter),
  },
  'inbox.acknowledge': {
    args: z.tuple([z.array(z.string().max(40)).min(1).max(10_000)]),
    handle: ({ services }, ids) => services.inbox.acknowledge(ids),
  },
  'inbox.exportFile': {
    args: z.tuple([]),
    handle: async (context) => {
      const path = await dialogs(context).save('svc-monitor-inbox.csv');
      if (!path) return null;
      const { services } = context;
      await writeFileAtomic(path, inboxCsv(services.inbox.list(), (i) => services.linkFor({ kind: 'task', environmentId: i.environmentId, taskId: i.taskId })));
      return path;
    },
  },
  'deepLink.taskLink': {
    args: z.tuple([environmentId, z.guid('must be a task id (a GUID)')]),
    handle: ({ services }, id, taskId) => {
      const link = services.linkFor({ kind: 'task', environmentId: id, taskId });
      if (!link) throw new ConsoleError('not-found', `Unknown environment "${id}"`);
      return link;
    },
  },
  'notifications.getSettings': { args: z.tuple([]), handle: ({ services }) => services.notifier.getSettings() },
  'notifications.setSettings': { args: z.tuple([notificationSettingsSchema]), handle: async ({ services }, settings) => (await services.setNotificationSettings(settings), null) },
  'vault.status': { args: z.tuple([]), handle: ({ services }) => services.vault.status() },
  'deepLink.open': { args: z.tuple([z.string().max(2048)]), handle: ({ services }, url) => services.openDeepLink(url) },
  'files.pickCaCertificate': { args: z.tuple([]), handle: (context) => dialogs(context).open('ca-certificate') },
  'environments.importFile': {
    args: z.tuple([]),
    handle: async (context) => {
      const path = await dialogs(context).open('environments');
      if (!path) return null;
      const info = await stat(path);
      if (info.size > IMPORT_MAX_BYTES) throw new ConsoleError('invalid-arguments', `${path}: import is larger than 1 MB`);
      return { path, text: await readFile(path, 'utf8') };
    },
  },
  'environments.exportFile': {
    args: z.tuple([]),
    handle: async (context) => {
      const path = await dialogs(context).save('svc-monitor-environments.json');
      if (!path) return null;
      await writeFileAtomic(path, context.services.store.exportJson());
      return path;
    },
  },
  'proxy.answer': {
    args: z.tuple([z.string().max(40), z.strictObject({ username: z.string().min(1).max(200), password: z.string().max(1000), remember: z.boolean() }).nullable()]),
    handle: ({ services }, id, answer) => (services.answerProxyLogin(id, answer), null),
  },
  'window.ready': { args: z.tuple([]), handle: ({ services }) => services.takePendingOpen() ?? null },
  'shell.openExternal': { args: z.tuple([httpUrl]), handle: async ({ openExternal }, url) => (await openExternal(url), null) },
} as const satisfies IpcChannelTable;

/** The channels main handles: the table's entries. */
export const IPC_TABLE_CHANNELS = Object.keys(IPC_CHANNEL_TABLE) as IpcChannelName[];

/** Channels whose schema does not infer exactly the shared contract's argument tuple. */
type MismatchedChannels = { [C in IpcChannelName]: SchemaMatches<(typeof IPC_CHANNEL_TABLE)[C]['args'], IpcArgs<C>> extends true ? never : C }[IpcChannelName];

/** Fails the type-check, naming the channels, when a schema drifts from the shared contract. */
export type IpcChannelTableMatchesContract = Assert<[MismatchedChannels] extends [never] ? true : { channelsWhoseSchemaDiffers: MismatchedChannels }>;
