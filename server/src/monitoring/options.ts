import type { Request } from 'express';
import { randomBytes } from 'node:crypto';
import { OptionError } from '../options/OptionError.js';
import { OptionReader, type OptionKind } from '../options/OptionReader.js';
import { resolveAlertRules, type AlertRule, type ResolvedAlertRule } from './alerts/alertRules.js';
import { consoleAuditLineLogger, type AuditLineLogger } from './audit/auditLineLogger.js';
import { invalidAddressRange } from './network/AddressRanges.js';
import { DEFAULT_TRUSTED_PROXIES } from './network/clientAddress.js';
import { OIDC_DEFAULTS, resolveOidcOptions, type OidcClaimRule, type ResolvedOidcOptions, type SignInEvent } from './auth/oidc/oidcOptions.js';

/** The monitoring options (camelCase forms of the service's configuration options, plus this implementation's own). */
export interface MonitoringOptions {
  enableUI?: boolean;
  enableOpenApiDocument?: boolean;
  /** Serve the Scalar reference page at /svc-monitoring/scalar; enables the document. */
  enableScalar?: boolean;
  /** Obsolete no-op since 4.0.0: accepted, ignored, warns once. */
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
  /** Replaces the operate-role check on management routes (after the allow-list and provenance checks). */
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
  /** Serve Prometheus metrics at /svc-monitoring/metrics (default true). */
  enableMetrics?: boolean;
  /** A bearer secret that lets scrapers read /svc-monitoring/metrics without logging in (at least 16 characters). */
  metricsToken?: string | null;
  /** How many task types get their own `type` label value; the rest share `other` (default 20). */
  metricsTypeLabelLimit?: number;
  /** Alert rules: webhooks posted when tasks fail, schedules halt, a queue backs up or the engine degrades. */
  alerts?: AlertRule[];
  /** The monitoring's address as people reach it (`https://ops.example.com`), for links in alert messages (default: paths only). */
  publicUrl?: string;
  /** OpenID Connect issuer (discovery at <issuer>/.well-known/openid-configuration); absent: no single sign-on. */
  oidcIssuer?: string | null;
  oidcClientId?: string | null;
  /** Absent: a public client (PKCE without a client secret). */
  oidcClientSecret?: string | null;
  /** Scopes asked for (default 'openid profile email'). */
  oidcScopes?: string;
  /** Who may sign in with the read role; when set, anyone matching neither role rule is refused (a claim allow-list). */
  oidcReadRole?: OidcClaimRule | null;
  /** Who gets the operate role, e.g. { claim: 'groups', value: 'svc-operators' }. */
  oidcOperateRole?: OidcClaimRule | null;
  /** E-mail domains allowed to sign in (the ID token's verified `email`); empty: any. */
  oidcAllowedEmailDomains?: string[];
  /** The provider's name on the dashboard's button: "Sign in with <name>". */
  oidcDisplayName?: string;
  /** The username/password login (default true); false turns POST /auth/login off. */
  enablePasswordLogin?: boolean;
  /** Called for every single sign-on attempt, succeeded or refused (the operator audit trail's hook). */
  onSignIn?: (event: SignInEvent) => void;
  /** Where startup notes and warnings go (default: console). */
  logger?: MonitoringLogger;
  /** Days the operator audit keeps its records (default 90); older ones are deleted at start and every hour. */
  operatorAuditRetentionDays?: number;
  /** Where each operator audit record goes as a structured log line: pino's `info(fields, message)` (default: JSON lines on stdout). */
  operatorAuditLogger?: AuditLineLogger;
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
  enableMetrics: boolean;
  metricsToken: string | null;
  metricsTypeLabelLimit: number;
  alerts: ResolvedAlertRule[];
  publicUrl: string | null;
  /** Single sign-on, when an issuer is configured. */
  oidc: ResolvedOidcOptions | null;
  enablePasswordLogin: boolean;
  onSignIn: ((event: SignInEvent) => void) | null;
  logger: MonitoringLogger;
  operatorAuditRetentionDays: number;
  operatorAuditLogger: AuditLineLogger;
  now: () => number;
}

/** A refused monitoring option (an OptionError whose owner is createMonitoring). */
export class MonitoringOptionError extends OptionError {
  constructor(option: string, detail: string) {
    super(MONITORING_OWNER, option, detail);
    this.name = 'MonitoringOptionError';
  }
}

export const MONITORING_OWNER = 'createMonitoring';

export interface MonitoringOptionSpec {
  kind: OptionKind;
  /** One line for --help and the README (the help adds the default). */
  description: string;
  /** The value the resolver uses when the option is not given (null: none). */
  default?: boolean | number | string | null | readonly string[];
  /** How the help names a default that is computed or not a plain value. */
  defaultText?: string;
  /** A secret: the CLI warns when it is passed as a flag (visible in the process list). */
  secret?: boolean;
}

const DEFAULT_LOGIN_LIMIT = { limit: 5, windowMs: 15 * 60 * 1000, maxClients: 10_000 };

/**
 * Every monitoring option: its kind, what it does and its default. `resolveOptions` reads them
 * with these kinds and defaults, the CLI coerces flags, environment variables and config files by
 * them, and `--help` lists them (all but functions and objects, which only code hosts can pass).
 */
export const MONITORING_OPTIONS = {
  enableUI: { kind: 'boolean', description: 'serve the dashboard at /svc-monitoring', default: true },
  enableOpenApiDocument: { kind: 'boolean', description: 'serve /svc-monitoring/openapi/svc-monitoring.json', default: false },
  enableScalar: { kind: 'boolean', description: 'serve the Scalar API reference at /svc-monitoring/scalar; enables the document', default: false },
  enableSwagger: { kind: 'boolean', description: 'obsolete no-op since 4.0.0 (warns)' },
  username: { kind: 'string', description: 'read credential user', default: 'admin' },
  password: { kind: 'string', description: 'read credential password', default: 'admin', secret: true },
  jwtSecret: { kind: 'string', description: 'HS256 secret', default: null, defaultText: 'random per process; tokens die at restart', secret: true },
  jwtIssuer: { kind: 'string', description: 'JWT issuer', default: 'Svc.Monitor.Api' },
  jwtAudience: { kind: 'string', description: 'JWT audience', default: 'Svc.Monitor.Api' },
  jwtExpirationHours: { kind: 'number', description: 'token lifetime in hours', default: 8 },
  enableAuthentication: { kind: 'boolean', description: 'require a JWT on the API', default: true },
  enableCors: { kind: 'boolean', description: 'CORS policy under /svc-monitoring', default: true },
  corsAllowedOrigins: { kind: 'strings', description: 'allowed origins, comma-separated', default: [], defaultText: 'all' },
  allowedIpAddresses: { kind: 'strings', description: 'IP allow-list: IPv4, IPv6, CIDR, comma-separated', default: [], defaultText: 'all' },
  magicLinkToken: { kind: 'string', description: 'magic-link token, at least 32 characters', default: null, secret: true },
  eventDebounceMs: { kind: 'integer', description: 'dashboard cache-invalidation debounce', default: 1000 },
  enableManagementEndpoints: { kind: 'boolean', description: 'expose the management actions (they need an engine)', default: false },
  managementUsername: { kind: 'string', description: 'operate credential user', default: null },
  managementPassword: { kind: 'string', description: 'operate credential password', default: null, secret: true },
  managementAuthorization: { kind: 'function', description: '(req) => boolean: replaces the operate-role check', default: null },
  includeExecutionLogs: { kind: 'boolean', description: 'include execution logs in hub events', default: false },
  trustForwardedFor: { kind: 'boolean', description: 'read X-Forwarded-For from trusted proxies (false trusts none)', default: true },
  trustedProxies: { kind: 'strings', description: 'proxies whose X-Forwarded-For is believed: IPs, CIDRs, comma-separated', default: DEFAULT_TRUSTED_PROXIES, defaultText: 'loopback' },
  hubMaxConnectionsPerClient: { kind: 'integer', description: 'concurrent hub connections per client address (beyond: 429)', default: 20 },
  hubMaxConnections: { kind: 'integer', description: 'concurrent hub connections in total (beyond: 503)', default: 1000 },
  loginRateLimit: { kind: 'boolean|object', description: 'true | false | {"limit":5,"windowMs":900000}', default: true, defaultText: `true: ${DEFAULT_LOGIN_LIMIT.limit} per ${DEFAULT_LOGIN_LIMIT.windowMs / 60_000} min` },
  webRoot: { kind: 'string', description: 'folder of the built dashboard', default: null, defaultText: 'the package web folder' },
  enableMetrics: { kind: 'boolean', description: 'serve Prometheus metrics at /svc-monitoring/metrics', default: true },
  metricsToken: { kind: 'string', description: 'bearer secret for scrapers of /svc-monitoring/metrics, at least 16 characters', default: null, secret: true },
  metricsTypeLabelLimit: { kind: 'integer', description: 'task types with their own metrics label; the rest are "other"', default: 20 },
  alerts: { kind: 'json', description: 'alert rules, a JSON array: [{"on":"TaskFailed","webhook":{"url":"https://…","secret":"whsec_…"}}]', defaultText: 'none', secret: true },
  publicUrl: { kind: 'string', description: 'the address people reach the monitoring at, for links in alerts', default: null, defaultText: 'paths only' },
  oidcIssuer: { kind: 'string', description: 'OpenID Connect issuer URL (single sign-on)', defaultText: 'none: no single sign-on' },
  oidcClientId: { kind: 'string', description: 'client id registered at the OpenID provider', defaultText: 'none' },
  oidcClientSecret: { kind: 'string', description: 'client secret (absent: a public client with PKCE)', defaultText: 'none', secret: true },
  oidcScopes: { kind: 'string', description: 'scopes asked of the provider', defaultText: OIDC_DEFAULTS.scopes },
  oidcReadRole: { kind: 'json', description: 'claim granting the read role: {"claim":"groups","value":"svc-readers"}; when set, others are refused', defaultText: 'every allowed user' },
  oidcOperateRole: { kind: 'json', description: 'claim granting the operate role: {"claim":"groups","value":"svc-operators"}', defaultText: 'nobody' },
  oidcAllowedEmailDomains: { kind: 'strings', description: 'e-mail domains allowed to sign in, comma-separated', defaultText: 'any' },
  oidcDisplayName: { kind: 'string', description: 'provider name on the "Sign in with …" button', defaultText: OIDC_DEFAULTS.displayName },
  enablePasswordLogin: { kind: 'boolean', description: 'the username/password login (false: POST /auth/login answers 404)', default: true },
  onSignIn: { kind: 'function', description: '(event) => void: every single sign-on attempt (audit trail)', default: null },
  logger: { kind: 'object', description: '{ info(message), warn(message) }', defaultText: 'console' },
  operatorAuditRetentionDays: { kind: 'integer', description: 'days the operator audit keeps its records (1..36500)', default: 90 },
  operatorAuditLogger: { kind: 'object', description: "pino-style { info(fields, message) } for the audit's log lines", defaultText: 'JSON lines on stdout' },
  now: { kind: 'function', description: 'clock in ms, for tests', defaultText: 'Date.now' },
} as const satisfies Record<keyof MonitoringOptions, MonitoringOptionSpec>;

type OptionName = keyof typeof MONITORING_OPTIONS;
type DefaultOf<K extends OptionName> = (typeof MONITORING_OPTIONS)[K] extends { default: infer D } ? D : never;

/** An option's default as the table writes it. */
function defaultOf<K extends OptionName>(name: K): DefaultOf<K> {
  return (MONITORING_OPTIONS[name] as MonitoringOptionSpec).default as DefaultOf<K>;
}

/** How --help names an option's default, or undefined when it has none to state. */
export function defaultLabel(spec: MonitoringOptionSpec): string | undefined {
  if (spec.defaultText !== undefined) return spec.defaultText;
  if (spec.default === undefined) return undefined;
  if (spec.default === null) return 'none';
  return Array.isArray(spec.default) ? spec.default.join(',') : String(spec.default);
}

/** Every option name with its kind. */
export const OPTION_KINDS = Object.fromEntries(Object.entries(MONITORING_OPTIONS).map(([name, spec]) => [name, spec.kind])) as {
  [K in keyof typeof MONITORING_OPTIONS]: (typeof MONITORING_OPTIONS)[K]['kind'];
};

/** A magic-link token is a long-lived bearer secret: shorter ones are guessable. */
const MIN_MAGIC_LINK_TOKEN_LENGTH = 32;
/** The metrics token only reads aggregate figures, but is a bearer secret all the same. */
const MIN_METRICS_TOKEN_LENGTH = 16;
/** The obsolete-option warning is said once per process, however many monitorings a host creates. */
let swaggerWarned = false;

/** Validates options at startup; every failure names the option. */
export function resolveOptions(raw: MonitoringOptions = {}): ResolvedOptions {
  const read = new OptionReader<MonitoringOptions>(MONITORING_OWNER, raw, Object.keys(MONITORING_OPTIONS));
  const bool = (name: keyof MonitoringOptions, fallback: boolean): boolean => read.boolean(name, fallback);
  const str = (name: keyof MonitoringOptions, fallback: string | null): string | null => read.string(name, fallback);
  const strings = (name: keyof MonitoringOptions): string[] => read.strings(name);
  const fn = <T>(name: keyof MonitoringOptions): T | null => read.fn<T>(name);

  const logger = raw.logger ?? { info: (m: string) => console.log(m), warn: (m: string) => console.warn(m) };
  if (typeof logger !== 'object' || logger === null || typeof logger.info !== 'function' || typeof logger.warn !== 'function') {
    throw read.fail('logger', 'must have info and warn functions');
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
    if (bad !== undefined) throw read.fail(name, `has "${bad}", which is not an IPv4/IPv6 address or CIDR range`);
    return entries;
  };
  const allowedIpAddresses = addressRanges('allowedIpAddresses');
  const trustForwardedFor = bool('trustForwardedFor', defaultOf('trustForwardedFor'));
  const trustedProxiesGiven = raw.trustedProxies === undefined ? null : addressRanges('trustedProxies');
  const trustedProxies = trustForwardedFor ? (trustedProxiesGiven ?? [...defaultOf('trustedProxies')]) : [];
  const corsAllowedOrigins = strings('corsAllowedOrigins');
  for (const origin of corsAllowedOrigins) {
    if (origin !== '*' && !/^https?:\/\/[^/\s]+$/i.test(origin)) {
      throw read.fail('corsAllowedOrigins', `has "${origin}", which is not an origin like https://host:port`);
    }
  }

  let loginRateLimit: ResolvedOptions['loginRateLimit'] = DEFAULT_LOGIN_LIMIT;
  if (raw.loginRateLimit === false) loginRateLimit = null;
  else if (raw.loginRateLimit !== undefined && raw.loginRateLimit !== true) {
    const l = raw.loginRateLimit as unknown;
    if (typeof l !== 'object' || l === null || Array.isArray(l)) {
      throw read.fail('loginRateLimit', 'must be true, false or {limit: integer ≥ 1, windowMs: number ≥ 1, maxClients?: integer ≥ 1}');
    }
    const budget = read.child('loginRateLimit', ['limit', 'windowMs', 'maxClients']);
    for (const required of ['limit', 'windowMs'] as const) if (!budget.has(required)) throw budget.fail(required, 'is required in a custom login limit');
    loginRateLimit = {
      limit: budget.integer('limit', DEFAULT_LOGIN_LIMIT.limit, { min: 1 }),
      windowMs: budget.number('windowMs', DEFAULT_LOGIN_LIMIT.windowMs, { min: 1 }),
      maxClients: budget.integer('maxClients', DEFAULT_LOGIN_LIMIT.maxClients, { min: 1 }),
    };
  }

  const managementUsername = str('managementUsername', defaultOf('managementUsername'));
  const managementPassword = str('managementPassword', defaultOf('managementPassword'));
  const jwtSecretGiven = str('jwtSecret', defaultOf('jwtSecret'));
  if (jwtSecretGiven !== null && Buffer.byteLength(jwtSecretGiven) < 32) {
    logger.warn('svc-monitoring: "jwtSecret" is shorter than 32 bytes; at least 256 bits are recommended.');
  }
  const magicLinkToken = str('magicLinkToken', defaultOf('magicLinkToken'));
  if (magicLinkToken !== null && magicLinkToken.length < MIN_MAGIC_LINK_TOKEN_LENGTH) {
    throw read.fail('magicLinkToken', `must be at least ${MIN_MAGIC_LINK_TOKEN_LENGTH} characters (it is a bearer secret that never expires)`);
  }
  const metricsToken = str('metricsToken', defaultOf('metricsToken'));
  if (metricsToken !== null && metricsToken.length < MIN_METRICS_TOKEN_LENGTH) {
    throw read.fail('metricsToken', `must be at least ${MIN_METRICS_TOKEN_LENGTH} characters (it is a bearer secret)`);
  }
  const publicUrl = str('publicUrl', defaultOf('publicUrl'));
  if (publicUrl !== null && !/^https?:\/\/[^/\s]+(\/\S*)?$/i.test(publicUrl)) throw read.fail('publicUrl', `must be an http(s) URL like https://ops.example.com (got "${publicUrl}")`);
  const enableScalar = bool('enableScalar', defaultOf('enableScalar'));
  const operatorAuditLogger = raw.operatorAuditLogger ?? consoleAuditLineLogger;
  if (typeof operatorAuditLogger !== 'object' || operatorAuditLogger === null || typeof operatorAuditLogger.info !== 'function') {
    throw read.fail('operatorAuditLogger', 'must have an info(fields, message) function (a pino logger does)');
  }
  const now = fn<() => number>('now') ?? Date.now;
  const oidc = resolveOidcOptions(read as unknown as OptionReader<Record<string, unknown>>);
  const enablePasswordLogin = bool('enablePasswordLogin', defaultOf('enablePasswordLogin'));
  if (!enablePasswordLogin && oidc === null) {
    throw read.fail('enablePasswordLogin', 'can be false only with oidcIssuer (otherwise nobody could sign in with the operate role)');
  }

  return {
    enableUI: bool('enableUI', defaultOf('enableUI')),
    enableOpenApiDocument: bool('enableOpenApiDocument', defaultOf('enableOpenApiDocument')) || enableScalar,
    enableScalar,
    username: str('username', defaultOf('username')) as string,
    password: str('password', defaultOf('password')) as string,
    jwtSecret: jwtSecretGiven ?? randomBytes(64).toString('base64url'),
    jwtSecretGenerated: jwtSecretGiven === null,
    jwtIssuer: str('jwtIssuer', defaultOf('jwtIssuer')) as string,
    jwtAudience: str('jwtAudience', defaultOf('jwtAudience')) as string,
    jwtExpirationHours: read.number('jwtExpirationHours', defaultOf('jwtExpirationHours'), { min: 0, above: true }),
    enableAuthentication: bool('enableAuthentication', defaultOf('enableAuthentication')),
    enableCors: bool('enableCors', defaultOf('enableCors')),
    corsAllowedOrigins,
    allowedIpAddresses,
    magicLinkToken,
    eventDebounceMs: read.integer('eventDebounceMs', defaultOf('eventDebounceMs'), { min: 0 }),
    enableManagementEndpoints: bool('enableManagementEndpoints', defaultOf('enableManagementEndpoints')),
    managementUsername,
    managementPassword,
    managementAuthorization: fn('managementAuthorization'),
    includeExecutionLogs: bool('includeExecutionLogs', defaultOf('includeExecutionLogs')),
    trustForwardedFor,
    trustedProxies,
    hubMaxConnectionsPerClient: read.integer('hubMaxConnectionsPerClient', defaultOf('hubMaxConnectionsPerClient'), { min: 1 }),
    hubMaxConnections: read.integer('hubMaxConnections', defaultOf('hubMaxConnections'), { min: 1 }),
    loginRateLimit,
    webRoot: str('webRoot', defaultOf('webRoot')),
    enableMetrics: bool('enableMetrics', defaultOf('enableMetrics')),
    metricsToken,
    metricsTypeLabelLimit: read.integer('metricsTypeLabelLimit', defaultOf('metricsTypeLabelLimit'), { min: 0 }),
    alerts: resolveAlertRules(MONITORING_OWNER, raw.alerts),
    publicUrl,
    oidc,
    enablePasswordLogin,
    onSignIn: fn('onSignIn'),
    logger,
    operatorAuditRetentionDays: read.integer('operatorAuditRetentionDays', defaultOf('operatorAuditRetentionDays'), { min: 1, max: 36_500 }),
    operatorAuditLogger,
    now,
  };
}
