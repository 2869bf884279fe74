import type { IpcChannelName, IpcResult } from '../../shared/ipcContract.js';
import { ConsoleError } from '../ConsoleError.js';
import type { z } from 'zod';
import { EnvironmentValidationError } from '../environments/EnvironmentStore.js';
import { IPC_CHANNEL_TABLE, type IpcHandlerContext } from './ipcChannelTable.js';

export function isIpcChannel(channel: string): channel is IpcChannelName {
  return Object.prototype.hasOwnProperty.call(IPC_CHANNEL_TABLE, channel);
}

/**
 * Validates a channel's arguments against its schema in IPC_CHANNEL_TABLE and runs its
 * handler. Never throws: answers `{ok:false, error}` for an unknown channel, refused
 * arguments (the message names the channel and each offending argument) or a failing handler.
 */
export function createIpcDispatcher(context: IpcHandlerContext) {
  return async function dispatch(channel: string, args: unknown[]): Promise<IpcResult<unknown>> {
    if (!isIpcChannel(channel)) {
      return { ok: false, error: { code: 'not-found', message: `Unknown IPC channel "${channel}"` } };
    }
    const entry = IPC_CHANNEL_TABLE[channel];
    const parsed = entry.args.safeParse(args);
    if (!parsed.success) {
      return { ok: false, error: { code: 'invalid-arguments', message: `${channel}: ${describeArgumentsError(parsed.error, entry.args.def.items.length, args)}` } };
    }
    try {
      const handle = entry.handle as (context: IpcHandlerContext, ...args: unknown[]) => unknown;
      const value = await handle(context, ...(parsed.data as unknown[]));
      return { ok: true, value };
    } catch (err) {
      if (err instanceof ConsoleError) return { ok: false, error: err.toJSON() };
      if (err instanceof EnvironmentValidationError) return { ok: false, error: { code: 'invalid-arguments', message: err.message } };
      return { ok: false, error: { code: 'http', message: err instanceof Error ? err.message : String(err) } };
    }
  };
}

/**
 * One line naming what is wrong: the number of arguments, or each refused argument by its
 * position (1-based) and the field inside it, e.g. `argument 2 remember: Invalid input: expected boolean`.
 */
export function describeArgumentsError(error: z.ZodError, expected: number, args: unknown): string {
  return error.issues
    .map((issue) => {
      const [position, ...inside] = issue.path;
      if (typeof position !== 'number') {
        const received = Array.isArray(args) ? args.length : 0;
        return `expects ${expected} argument${expected === 1 ? '' : 's'}, received ${received}`;
      }
      return `argument ${position + 1}${inside.length > 0 ? ` ${inside.map(String).join('.')}` : ''}: ${issue.message}`;
    })
    .join('; ');
}

export type IpcDispatcher = ReturnType<typeof createIpcDispatcher>;
