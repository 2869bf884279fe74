import type { HubOptions } from './createHub.js';

export interface ResolvedHubOptions {
  path: string;
  access: HubOptions['access'];
  includeExecutionLogs: boolean;
  keepAliveIntervalMs: number;
  clientTimeoutMs: number;
  maxMessageBytes: number;
  maxBufferedBytes: number;
  longPollTimeoutMs: number;
  clientKey: HubOptions['clientKey'];
  maxConnectionsPerClient: number;
  maxConnections: number;
}

export const HUB_DEFAULTS = {
  keepAliveIntervalMs: 15_000,
  clientTimeoutMs: 30_000,
  maxMessageBytes: 32 * 1024,
  maxBufferedBytes: 1024 * 1024,
  longPollTimeoutMs: 90_000,
} as const;

/** A cap given as a positive integer; none (Infinity) when absent. */
function optionalCap(options: HubOptions, name: 'maxConnectionsPerClient' | 'maxConnections'): number {
  const value = options[name];
  if (value === undefined) return Infinity;
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) {
    throw new HubOptionError(name, `must be a positive integer (got ${JSON.stringify(value)})`);
  }
  return value;
}

export class HubOptionError extends Error {
  constructor(
    readonly option: string,
    detail: string,
  ) {
    super(`createHub: option '${option}' ${detail}`);
    this.name = 'HubOptionError';
  }
}

function positiveInt(options: HubOptions, name: keyof typeof HUB_DEFAULTS): number {
  const value = options[name];
  if (value === undefined) return HUB_DEFAULTS[name];
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) {
    throw new HubOptionError(name, `must be a positive integer (got ${JSON.stringify(value)})`);
  }
  return value;
}

/** Validates the options; a bad one fails here with its name. */
export function resolveHubOptions(options: HubOptions): ResolvedHubOptions {
  if (typeof options !== 'object' || options === null) throw new HubOptionError('options', 'must be an object');
  const { path, access } = options;
  if (typeof path !== 'string' || !path.startsWith('/') || (path.length > 1 && path.endsWith('/')) || /[?#\s]/.test(path)) {
    throw new HubOptionError('path', `must be an absolute URL path without a trailing slash (got ${JSON.stringify(path)})`);
  }
  if (typeof access !== 'function') throw new HubOptionError('access', 'must be a function (req, accessToken) => decision');
  const events = options.events;
  if (events !== undefined && (typeof events.on !== 'function' || typeof events.off !== 'function')) {
    throw new HubOptionError('events', 'must have on/off methods (an EventEmitter of "event")');
  }
  const resolved: ResolvedHubOptions = {
    path,
    access,
    includeExecutionLogs: options.includeExecutionLogs === true,
    keepAliveIntervalMs: positiveInt(options, 'keepAliveIntervalMs'),
    clientTimeoutMs: positiveInt(options, 'clientTimeoutMs'),
    maxMessageBytes: positiveInt(options, 'maxMessageBytes'),
    maxBufferedBytes: positiveInt(options, 'maxBufferedBytes'),
    longPollTimeoutMs: positiveInt(options, 'longPollTimeoutMs'),
    clientKey: options.clientKey,
    maxConnectionsPerClient: optionalCap(options, 'maxConnectionsPerClient'),
    maxConnections: optionalCap(options, 'maxConnections'),
  };
  if (options.clientKey !== undefined && typeof options.clientKey !== 'function') {
    throw new HubOptionError('clientKey', 'must be a function (req) => string');
  }
  if (resolved.clientTimeoutMs <= resolved.keepAliveIntervalMs) {
    // The .NET guidance: the client timeout should be at least double the keep-alive interval.
    throw new HubOptionError('clientTimeoutMs', `must be greater than keepAliveIntervalMs (${resolved.keepAliveIntervalMs})`);
  }
  return resolved;
}
