import type { Request } from 'express';
import { randomBytes } from 'node:crypto';
import { invalidAddressRange } from './network/AddressRanges.js';
import { DEFAULT_TRUSTED_PROXIES } from './network/clientAddress.js';

/** DESIGN §5.1: camelCase forms of the spec §5 options, plus the decisions' own. */
export interface MonitoringOptions {
  enableUI?: boolean;
  enableOpenApiDocument?: boolean;
  /** Serve the Scalar reference page at /svc-monitoring/scalar; enables the document. */
  enableScalar?: boolean;
  /** Obsolete no-op since 4.0.0 (§9): accepted, ignored, warns once. */
  enableSwagger?: boolean;
  username?: string;
  password?: string;
  jwtSecret?: string;
  jwtIssuer?: string;
  jwtAudience?: string;
  jwtExpirationHours?: number;
  enableAuthentication?: boolean;
  enableCors?: boolean;
  corsAllowedOrigins?: string[];
  allowedIpAddresses?: string[];
  magicLinkToken?: string | null;
  eventDebounceMs?: number;
  enableManagementEndpoints?: boolean;
  managementUsername?: string;
  managementPassword?: string;
  /** Replaces the operate-role check on management routes (D12). */
  managementAuthorization?: (req: Request) => Promise<boolean> | boolean;
  includeExecutionLogs?: boolean;
  /** Read X-Forwarded-For from the trusted proxies (default true); false trusts no proxy. */
  trustForwardedFor?: boolean;
  /** Peers whose X-Forwarded-For is believed: addresses and CIDR ranges (default: loopback). */
  trustedProxies?: string[];
  /** Concurrent hub connections from one client address (default 20); beyond → 429. */
  hubMaxConnectionsPerClient?: number;
  /** Concurrent hub connections in total (default 1000); beyond → 503. */
  hubMaxConnections?: number;
  /** Login limit: true (5 per 15 min), false (off), or a custom budget (maxClients: addresses tracked, default 10000). */
  loginRateLimit?: boolean | { limit: number; windowMs: number; maxClients?: number };
  /** Folder of the built dashboard (default: the package's `web` folder). */
  webRoot?: string;
  /** Where startup notes and warnings go (default: console). */
  logger?: MonitoringLogger;
  /** Clock, for tests. */
  now?: () => number;
}

export interface MonitoringLogger {
  info(message: string): void;
  warn(message: string): void;
}

export interface ResolvedOptions {
  enableUI: boolean;
  enableOpenApiDocument: boolean;
  enableScalar: boolean;
  username: string;
  password: string;
  jwtSecret: string;
  jwtSecretGenerated: boolean;
  jwtIssuer: string;
  jwtAudience: string;
  jwtExpirationHours: number;
  enableAuthentication: boolean;
  enableCors: boolean;
  corsAllowedOrigins: string[];
  allowedIpAddresses: string[];
  magicLinkToken: string | null;
  eventDebounceMs: number;
  enableManagementEndpoints: boolean;
  managementUsername: string | null;
  managementPassword: string | null;
  managementAuthorization: ((req: Request) => Promise<boolean> | boolean) | null;
  includeExecutionLogs: boolean;
  trustForwardedFor: boolean;
  /** Trusted proxies in effect: empty when trustForwardedFor is false. */
  trustedProxies: string[];
  hubMaxConnectionsPerClient: number;
  hubMaxConnections: number;
  loginRateLimit: { limit: number; windowMs: number; maxClients: number } | null;
  webRoot: string | null;
  logger: MonitoringLogger;
  now: () => number;
}

export class MonitoringOptionError extends Error {
  constructor(
    readonly option: string,
    message: string,
  ) {
    super(`Invalid monitoring option "${option}": ${message}`);
    this.name = 'MonitoringOptionError';
  }
}

/** Every option name, with its expected kind (used for validation, --help and env parsing). */
export const OPTION_KINDS = {
  enableUI: 'boolean',
  enableOpenApiDocument: 'boolean',
  enableScalar: 'boolean',
  enableSwagger: 'boolean',
  username: 'string',
  password: 'string',
  jwtSecret: 'string',
  jwtIssuer: 'string',
  jwtAudience: 'string',
  jwtExpirationHours: 'number',
  enableAuthentication: 'boolean',
  enableCors: 'boolean',
  corsAllowedOrigins: 'string[]',
  allowedIpAddresses: 'string[]',
  magicLinkToken: 'string',
  eventDebounceMs: 'number',
  enableManagementEndpoints: 'boolean',
  managementUsername: 'string',
  managementPassword: 'string',
  managementAuthorization: 'function',
  includeExecutionLogs: 'boolean',
  trustForwardedFor: 'boolean',
  trustedProxies: 'string[]',
  hubMaxConnectionsPerClient: 'number',
  hubMaxConnections: 'number',
  loginRateLimit: 'boolean|object',
  webRoot: 'string',
  logger: 'object',
  now: 'function',
} as const satisfies Record<keyof MonitoringOptions, string>;

const DEFAULT_LOGIN_LIMIT = { limit: 5, windowMs: 15 * 60 * 1000, maxClients: 10_000 };
/** A magic-link token is a long-lived bearer secret: shorter ones are guessable. */
const MIN_MAGIC_LINK_TOKEN_LENGTH = 32;
let swaggerWarned = false;

/** Validates options at startup; every failure names the option. */
export function resolveOptions(raw: MonitoringOptions = {}): ResolvedOptions {
  if (typeof raw !== 'object' || raw === null) throw new MonitoringOptionError('options', 'must be an object');
  for (const key of Object.keys(raw)) {
    if (!(key in OPTION_KINDS)) throw new MonitoringOptionError(key, 'unknown option');
  }
  const bool = (name: keyof MonitoringOptions, fallback: boolean): boolean => {
    const v = raw[name];
    if (v === undefined) return fallback;
    if (typeof v !== 'boolean') throw new MonitoringOptionError(name, 'must be a boolean');
    return v;
  };
  const str = (name: keyof MonitoringOptions, fallback: string | null, allowEmpty = false): string | null => {
    const v = raw[name];
    if (v === undefined || v === null) return fallback;
    if (typeof v !== 'string') throw new MonitoringOptionError(name, 'must be a string');
    if (!allowEmpty && v.length === 0) throw new MonitoringOptionError(name, 'must not be empty');
    return v;
  };
  const strings = (name: keyof MonitoringOptions): string[] => {
    const v = raw[name];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) {
      throw new MonitoringOptionError(name, 'must be an array of strings');
    }
    return (v as string[]).map((x) => x.trim()).filter((x) => x !== '');
  };
  const number = (name: keyof MonitoringOptions, fallback: number, min: number, integer: boolean): number => {
    const v = raw[name];
    if (v === undefined) return fallback;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min || (integer && !Number.isInteger(v))) {
      throw new MonitoringOptionError(name, `must be ${integer ? 'an integer' : 'a number'} ≥ ${min}`);
    }
    return v;
  };
  const fn = <T>(name: keyof MonitoringOptions): T | null => {
    const v = raw[name];
    if (v === undefined || v === null) return null;
    if (typeof v !== 'function') throw new MonitoringOptionError(name, 'must be a function');
    return v as T;
  };

  const logger = raw.logger ?? { info: (m: string) => console.log(m), warn: (m: string) => console.warn(m) };
  if (typeof logger.info !== 'function' || typeof logger.warn !== 'function') {
    throw new MonitoringOptionError('logger', 'must have info and warn functions');
  }
  if (raw.enableSwagger !== undefined) {
    bool('enableSwagger', false);
    if (!swaggerWarned) {
      swaggerWarned = true;
      logger.warn('svc-monitoring: option "enableSwagger" is obsolete since 4.0.0 and ignored; use "enableOpenApiDocument".');
    }
  }

  const addressRanges = (name: 'allowedIpAddresses' | 'trustedProxies'): string[] => {
    const entries = strings(name);
    const bad = invalidAddressRange(entries);
    if (bad !== undefined) throw new MonitoringOptionError(name, `"${bad}" is not an IPv4/IPv6 address or CIDR range`);
    return entries;
  };
  const allowedIpAddresses = addressRanges('allowedIpAddresses');
  const trustForwardedFor = bool('trustForwardedFor', true);
  const trustedProxiesGiven = raw.trustedProxies === undefined ? null : addressRanges('trustedProxies');
  const trustedProxies = trustForwardedFor ? (trustedProxiesGiven ?? [...DEFAULT_TRUSTED_PROXIES]) : [];
  const corsAllowedOrigins = strings('corsAllowedOrigins');
  for (const origin of corsAllowedOrigins) {
    if (origin !== '*' && !/^https?:\/\/[^/\s]+$/i.test(origin)) {
      throw new MonitoringOptionError('corsAllowedOrigins', `"${origin}" is not an origin like https://host:port`);
    }
  }

  let loginRateLimit: ResolvedOptions['loginRateLimit'] = DEFAULT_LOGIN_LIMIT;
  if (raw.loginRateLimit === false) loginRateLimit = null;
  else if (raw.loginRateLimit !== undefined && raw.loginRateLimit !== true) {
    const l = raw.loginRateLimit as { limit?: unknown; windowMs?: unknown; maxClients?: unknown };
    const maxClients = l?.maxClients ?? DEFAULT_LOGIN_LIMIT.maxClients;
    if (
      typeof l !== 'object' ||
      l === null ||
      typeof l.limit !== 'number' ||
      !Number.isInteger(l.limit) ||
      l.limit < 1 ||
      typeof l.windowMs !== 'number' ||
      !Number.isFinite(l.windowMs) ||
      l.windowMs < 1 ||
      typeof maxClients !== 'number' ||
      !Number.isInteger(maxClients) ||
      maxClients < 1
    ) {
      throw new MonitoringOptionError(
        'loginRateLimit',
        'must be true, false or {limit: integer ≥ 1, windowMs: number ≥ 1, maxClients?: integer ≥ 1}',
      );
    }
    loginRateLimit = { limit: l.limit, windowMs: l.windowMs, maxClients };
  }

  const managementUsername = str('managementUsername', null);
  const managementPassword = str('managementPassword', null);
  const jwtSecretGiven = str('jwtSecret', null);
  if (jwtSecretGiven !== null && Buffer.byteLength(jwtSecretGiven) < 32) {
    logger.warn('svc-monitoring: "jwtSecret" is shorter than 32 bytes; at least 256 bits are recommended.');
  }
  const magicLinkToken = str('magicLinkToken', null);
  if (magicLinkToken !== null && magicLinkToken.length < MIN_MAGIC_LINK_TOKEN_LENGTH) {
    throw new MonitoringOptionError('magicLinkToken', `must be at least ${MIN_MAGIC_LINK_TOKEN_LENGTH} characters (it is a bearer secret that never expires)`);
  }
  const enableScalar = bool('enableScalar', false);
  const now = fn<() => number>('now') ?? Date.now;

  return {
    enableUI: bool('enableUI', true),
    enableOpenApiDocument: bool('enableOpenApiDocument', false) || enableScalar,
    enableScalar,
    username: str('username', 'admin') as string,
    password: str('password', 'admin') as string,
    jwtSecret: jwtSecretGiven ?? randomBytes(64).toString('base64url'),
    jwtSecretGenerated: jwtSecretGiven === null,
    jwtIssuer: str('jwtIssuer', 'Svc.Monitor.Api') as string,
    jwtAudience: str('jwtAudience', 'Svc.Monitor.Api') as string,
    jwtExpirationHours: (() => {
      const h = number('jwtExpirationHours', 8, 0, false);
      if (h <= 0) throw new MonitoringOptionError('jwtExpirationHours', 'must be greater than 0');
      return h;
    })(),
    enableAuthentication: bool('enableAuthentication', true),
    enableCors: bool('enableCors', true),
    corsAllowedOrigins,
    allowedIpAddresses,
    magicLinkToken,
    eventDebounceMs: number('eventDebounceMs', 1000, 0, true),
    enableManagementEndpoints: bool('enableManagementEndpoints', false),
    managementUsername,
    managementPassword,
    managementAuthorization: fn('managementAuthorization'),
    includeExecutionLogs: bool('includeExecutionLogs', false),
    trustForwardedFor,
    trustedProxies,
    hubMaxConnectionsPerClient: number('hubMaxConnectionsPerClient', 20, 1, true),
    hubMaxConnections: number('hubMaxConnections', 1000, 1, true),
    loginRateLimit,
    webRoot: str('webRoot', null),
    logger,
    now,
  };
}
