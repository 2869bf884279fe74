import type { Request } from 'express';
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';

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
  /** Use the first X-Forwarded-For address as the client address (§5.9). Default true. */
  trustForwardedFor?: boolean;
  /** §8 login limit: true (5 per 15 min), false (off), or a custom budget. */
  loginRateLimit?: boolean | { limit: number; windowMs: number };
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
  loginRateLimit: { limit: number; windowMs: number } | null;
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
  loginRateLimit: 'boolean|object',
  webRoot: 'string',
  logger: 'object',
  now: 'function',
} as const satisfies Record<keyof MonitoringOptions, string>;

const DEFAULT_LOGIN_LIMIT = { limit: 5, windowMs: 15 * 60 * 1000 };
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

  const allowedIpAddresses = strings('allowedIpAddresses');
  for (const entry of allowedIpAddresses) {
    const [addr, prefix, extra] = entry.split('/');
    const family = isIP(addr ?? '');
    const bits = family === 6 ? 128 : 32;
    const badPrefix = prefix !== undefined && (!/^\d{1,3}$/.test(prefix) || Number(prefix) > bits);
    if (family === 0 || badPrefix || extra !== undefined) {
      throw new MonitoringOptionError('allowedIpAddresses', `"${entry}" is not an IPv4/IPv6 address or CIDR range`);
    }
  }
  const corsAllowedOrigins = strings('corsAllowedOrigins');
  for (const origin of corsAllowedOrigins) {
    if (origin !== '*' && !/^https?:\/\/[^/\s]+$/i.test(origin)) {
      throw new MonitoringOptionError('corsAllowedOrigins', `"${origin}" is not an origin like https://host:port`);
    }
  }

  let loginRateLimit: ResolvedOptions['loginRateLimit'] = DEFAULT_LOGIN_LIMIT;
  if (raw.loginRateLimit === false) loginRateLimit = null;
  else if (raw.loginRateLimit !== undefined && raw.loginRateLimit !== true) {
    const l = raw.loginRateLimit as { limit?: unknown; windowMs?: unknown };
    if (
      typeof l !== 'object' ||
      l === null ||
      typeof l.limit !== 'number' ||
      !Number.isInteger(l.limit) ||
      l.limit < 1 ||
      typeof l.windowMs !== 'number' ||
      !Number.isFinite(l.windowMs) ||
      l.windowMs < 1
    ) {
      throw new MonitoringOptionError('loginRateLimit', 'must be true, false or {limit: integer ≥ 1, windowMs: number ≥ 1}');
    }
    loginRateLimit = { limit: l.limit, windowMs: l.windowMs };
  }

  const managementUsername = str('managementUsername', null);
  const managementPassword = str('managementPassword', null);
  const jwtSecretGiven = str('jwtSecret', null);
  if (jwtSecretGiven !== null && Buffer.byteLength(jwtSecretGiven) < 32) {
    logger.warn('svc-monitoring: "jwtSecret" is shorter than 32 bytes; at least 256 bits are recommended.');
  }
  const enableScalar = bool('enableScalar', false);
  const now = fn<() => number>('now') ?? Date.now;

  return {
    enableUI: bool('enableUI', true),
    enableOpenApiDocument: bool('enableOpenApiDocument', false) || enableScalar,
    enableScalar,
    username: str('username', 'admin') as string,
    password: str('password', 'admin', true) as string,
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
    magicLinkToken: str('magicLinkToken', null),
    eventDebounceMs: number('eventDebounceMs', 1000, 0, true),
    enableManagementEndpoints: bool('enableManagementEndpoints', false),
    managementUsername,
    managementPassword,
    managementAuthorization: fn('managementAuthorization'),
    includeExecutionLogs: bool('includeExecutionLogs', false),
    trustForwardedFor: bool('trustForwardedFor', true),
    loginRateLimit,
    webRoot: str('webRoot', null),
    logger,
    now,
  };
}
