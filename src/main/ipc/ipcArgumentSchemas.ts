import { z } from 'zod';
import { PROXIED_OPERATIONS } from '../api/operationParams.js';
import { environmentInputSchema, environmentPatchSchema } from '../environments/environment.js';
import { notificationSettingsSchema } from '../notifications/notificationSettings.js';
import type { IpcChannelName } from '../../shared/ipcContract.js';

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

/**
 * The argument list each IPC channel accepts, validated in main before any handler runs.
 * Tuples are exact: a missing, extra or mistyped argument is refused.
 */
export const IPC_ARGUMENTS = {
  'environments.list': z.tuple([]),
  'environments.add': z.tuple([environmentInputSchema]),
  'environments.update': z.tuple([environmentId, environmentPatchSchema]),
  'environments.remove': z.tuple([environmentId]),
  'environments.reorder': z.tuple([z.array(environmentId).max(1000)]),
  'environments.export': z.tuple([]),
  'environments.import': z.tuple([z.string().max(1_000_000, 'import is larger than 1 MB'), z.enum(['merge', 'replace'])]),
  'session.get': z.tuple([environmentId]),
  'session.loginPassword': z.tuple([
    environmentId,
    z.strictObject({ username: z.string().min(1).max(200), password: z.string().min(1).max(1000), remember: z.boolean() }),
  ]),
  'session.loginMagic': z.tuple([environmentId, z.string().min(1).max(1000)]),
  'session.logout': z.tuple([environmentId]),
  'session.retry': z.tuple([environmentId]),
  'api.call': z.tuple([environmentId, z.enum(PROXIED_OPERATIONS), z.record(z.string(), z.unknown())]),
  'inbox.list': z.tuple([
    z.strictObject({ environmentId: environmentId.optional(), burstId: z.string().max(40).optional(), unreadOnly: z.boolean().optional() }),
  ]),
  'inbox.markRead': z.tuple([
    z.strictObject({
      ids: z.array(z.string().max(40)).max(10_000).optional(),
      environmentId: environmentId.optional(),
      burstId: z.string().max(40).optional(),
    }),
  ]),
  'notifications.getSettings': z.tuple([]),
  'notifications.setSettings': z.tuple([notificationSettingsSchema]),
  'vault.status': z.tuple([]),
  'deepLink.open': z.tuple([z.string().max(2048)]),
  'shell.openExternal': z.tuple([httpUrl]),
} as const satisfies Record<IpcChannelName, z.ZodType>;

export type IpcChannel = keyof typeof IPC_ARGUMENTS;
export const IPC_CHANNELS = Object.keys(IPC_ARGUMENTS) as IpcChannel[];
export type IpcArgs<C extends IpcChannel> = z.input<(typeof IPC_ARGUMENTS)[C]>;

