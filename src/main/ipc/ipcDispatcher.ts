import { ConsoleError } from '../ConsoleError.js';
import type { ConsoleServices } from '../ConsoleServices.js';
import { describeZodError } from '../environments/environment.js';
import { EnvironmentValidationError } from '../environments/EnvironmentStore.js';
import { IPC_ARGUMENTS, type IpcChannel } from './ipcArgumentSchemas.js';
import type { IpcArgs, IpcResult, IpcValue } from '../../shared/ipcContract.js';

export interface IpcEnvironment {
  /** Electron `shell.openExternal` in the wiring. */
  openExternal(url: string): Promise<void>;
}

type Handlers = { [C in IpcChannel]: (...args: IpcArgs<C>) => Promise<IpcValue<C>> | IpcValue<C> };

function handlersFor(services: ConsoleServices, env: IpcEnvironment): Handlers {
  return {
    'environments.list': () => services.environments(),
    'environments.add': (input) => services.addEnvironment(input),
    'environments.update': (id, patch) => services.updateEnvironment(id, patch),
    'environments.remove': async (id) => (await services.removeEnvironment(id), null),
    'environments.reorder': async (ids) => (await services.reorderEnvironments(ids), null),
    'environments.export': () => services.exportEnvironments(),
    'environments.import': (json, mode) => services.importEnvironments(json, mode),
    'session.get': (id) => services.sessionView(id),
    'session.loginPassword': (id, c) => services.loginWithPassword(id, c.username, c.password, c.remember),
    'session.loginMagic': (id, token) => services.loginWithMagicToken(id, token),
    'session.logout': (id) => services.logout(id),
    'session.retry': (id) => services.retry(id),
    'api.call': (id, op, params) => services.call(id, op, params),
    'inbox.list': (filter) => services.inboxList(filter),
    'inbox.markRead': ({ ids, ...filter }) => services.markInboxRead(ids, filter),
    'notifications.getSettings': () => services.notificationSettings(),
    'notifications.setSettings': async (s) => (await services.setNotificationSettings(s), null),
    'vault.status': () => services.vaultStatus(),
    'deepLink.open': (url) => services.openDeepLink(url),
    'shell.openExternal': async (url) => (await env.openExternal(url), null),
  };
}

/**
 * Validates a channel's arguments against IPC_ARGUMENTS and runs its handler. Never throws:
 * answers `{ok:false, error}` for an unknown channel, refused arguments or a failing handler.
 */
export function createIpcDispatcher(services: ConsoleServices, env: IpcEnvironment) {
  const handlers = handlersFor(services, env);
  return async function dispatch(channel: string, args: unknown[]): Promise<IpcResult<unknown>> {
    if (!Object.prototype.hasOwnProperty.call(IPC_ARGUMENTS, channel)) {
      return { ok: false, error: { code: 'not-found', message: `Unknown IPC channel "${channel}"` } };
    }
    const c = channel as IpcChannel;
    const parsed = IPC_ARGUMENTS[c].safeParse(args);
    if (!parsed.success) {
      return { ok: false, error: { code: 'invalid-arguments', message: `${c}: ${describeZodError(parsed.error)}` } };
    }
    try {
      const handler = handlers[c] as (...a: unknown[]) => unknown;
      const value = await handler(...(parsed.data as unknown[]));
      return { ok: true, value };
    } catch (err) {
      if (err instanceof ConsoleError) return { ok: false, error: err.toJSON() };
      if (err instanceof EnvironmentValidationError) return { ok: false, error: { code: 'invalid-arguments', message: err.message } };
      return { ok: false, error: { code: 'http', message: err instanceof Error ? err.message : String(err) } };
    }
  };
}

export type IpcDispatcher = ReturnType<typeof createIpcDispatcher>;
