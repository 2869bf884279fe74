import { OptionError } from '../options/OptionError.js';
import { OptionReader } from '../options/OptionReader.js';
import type { HubOptions } from './createHub.js';

export interface ResolvedHubOptions {
  path: string;
  access: HubOptions['access'];
  includeExecutionLogs: boolean;
  keepAliveIntervalMs: number;
  clientTimeoutMs: number;
  maxMessageBytes: number;
  maxBufferedBytes: number;
  slowClientBufferedBytes: number;
  slowClientGraceMs: number;
  longPollTimeoutMs: number;
  clientKey: HubOptions['clientKey'];
  maxConnectionsPerClient: number;
  maxConnections: number;
}

export const HUB_DEFAULTS = {
  keepAliveIntervalMs: 15_000,
  clientTimeoutMs: 30_000,
  maxMessageBytes: 32 * 1024,
  maxBufferedBytes: 16 * 1024 * 1024,
  slowClientBufferedBytes: 1024 * 1024,
  slowClientGraceMs: 10_000,
  longPollTimeoutMs: 90_000,
} as const;

const HUB_OWNER = 'createHub';

/** A refused hub option (an OptionError whose owner is createHub). */
export class HubOptionError extends OptionError {
  constructor(option: string, detail: string) {
    super(HUB_OWNER, option, detail);
    this.name = 'HubOptionError';
  }
}

const HUB_OPTION_NAMES = [
  'path',
  'access',
  'events',
  'includeExecutionLogs',
  'keepAliveIntervalMs',
  'clientTimeoutMs',
  'maxMessageBytes',
  'maxBufferedBytes',
  'slowClientBufferedBytes',
  'slowClientGraceMs',
  'longPollTimeoutMs',
  'clientKey',
  'maxConnectionsPerClient',
  'maxConnections',
] as const satisfies ReadonlyArray<keyof HubOptions>;

/** Validates the options; a bad one fails here with its name. */
export function resolveHubOptions(options: HubOptions): ResolvedHubOptions {
  const read = new OptionReader<HubOptions>(HUB_OWNER, options, HUB_OPTION_NAMES);
  const fail = (name: keyof HubOptions, detail: string) => new HubOptionError(name, detail);
  const path = read.value('path');
  if (typeof path !== 'string' || !path.startsWith('/') || (path.length > 1 && path.endsWith('/')) || /[?#\s]/.test(path)) {
    throw fail('path', `must be an absolute URL path without a trailing slash (got ${JSON.stringify(path)})`);
  }
  const access = read.fn<HubOptions['access']>('access');
  if (access === null) throw fail('access', 'must be a function (req, accessToken) => decision');
  const events = options.events;
  if (events !== undefined && (typeof events.on !== 'function' || typeof events.off !== 'function')) {
    throw fail('events', 'must have on/off methods (an EventEmitter of "event")');
  }
  const positive = (name: keyof typeof HUB_DEFAULTS): number => read.integer(name, HUB_DEFAULTS[name], { min: 1 });
  const resolved: ResolvedHubOptions = {
    path,
    access,
    includeExecutionLogs: read.boolean('includeExecutionLogs', false),
    keepAliveIntervalMs: positive('keepAliveIntervalMs'),
    clientTimeoutMs: positive('clientTimeoutMs'),
    maxMessageBytes: positive('maxMessageBytes'),
    maxBufferedBytes: positive('maxBufferedBytes'),
    // A lower hard bound lowers the slow-client one with it (a grace over the hard bound would never start).
    slowClientBufferedBytes: Math.min(positive('slowClientBufferedBytes'), positive('maxBufferedBytes')),
    slowClientGraceMs: positive('slowClientGraceMs'),
    longPollTimeoutMs: positive('longPollTimeoutMs'),
    clientKey: read.fn<NonNullable<HubOptions['clientKey']>>('clientKey') ?? undefined,
    // Caps are opt-in: none (Infinity) when absent.
    maxConnectionsPerClient: read.integer('maxConnectionsPerClient', Infinity, { min: 1 }),
    maxConnections: read.integer('maxConnections', Infinity, { min: 1 }),
  };
  if (resolved.clientTimeoutMs <= resolved.keepAliveIntervalMs) {
    // The .NET guidance: the client timeout should be at least double the keep-alive interval.
    throw fail('clientTimeoutMs', `must be greater than keepAliveIntervalMs (${resolved.keepAliveIntervalMs})`);
  }
  return resolved;
}
