import { readFileSync } from 'node:fs';
import { MONITORING_OPTIONS, type MonitoringOptions } from '../monitoring/options.js';
import { OptionError } from '../options/OptionError.js';
import type { OptionKind } from '../options/OptionReader.js';
import { CliError } from './CliError.js';
import { resolveLogSettings, type LogSettings } from './logging.js';
import { camelToEnv, camelToKebab, parseFlags, type FlagValue } from './parseFlags.js';

type CliKind = Exclude<OptionKind, 'function' | 'object'>;

/** Monitoring options settable from the CLI (functions and objects are for code hosts only), from the options table. */
export const CLI_OPTION_KINDS = Object.fromEntries(
  Object.entries(MONITORING_OPTIONS)
    .filter(([, spec]) => spec.kind !== 'function' && spec.kind !== 'object')
    .map(([name, spec]) => [name, spec.kind]),
) as Record<string, CliKind>;

/** Settings of the CLI itself (not monitoring options). */
export const CLI_SETTINGS = {
  db: 'string',
  database: 'string',
  port: 'number',
  host: 'string',
  config: 'string',
  logFormat: 'string',
  logLevel: 'string',
  drainDelayMs: 'integer',
  stopGraceMs: 'integer',
} as const satisfies Record<string, CliKind>;

/** Defaults of the stop (see runHttpServer): no delay off a load balancer; 2 s for running tasks (the recipes under deploy/ set more). */
export const STOP_DEFAULTS = { drainDelayMs: 0, stopGraceMs: 2_000 } as const;

export interface ServeSettings {
  /** Values of command-specific flags (e.g. demo's --demo-dispatch-endpoint). */
  extras: Record<string, unknown>;
  db?: string;
  /** PostgreSQL connection string (`--database`, SVC_MONITOR_DATABASE). */
  database?: string;
  port: number;
  host: string;
  /** --log-format and --log-level (json by default when stdout is not a terminal). */
  log: LogSettings;
  /** After SIGTERM, how long readiness answers 503 while everything else still serves (load balancers notice). */
  drainDelayMs: number;
  /** How long running tasks may take to finish at a stop before they are handed back. */
  stopGraceMs: number;
  options: MonitoringOptions;
}

/** Turns a flag, environment or config value into the option's kind; a bad one is an OptionError naming where it came from. */
function coerce(name: string, kind: string, raw: unknown, source: string): unknown {
  const fail = (what: string) => new OptionError(`svc-monitor-server (${source})`, name, what);
  if (kind === 'boolean') {
    if (typeof raw === 'boolean') return raw;
    if (typeof raw === 'string' && /^(true|1)$/i.test(raw)) return true;
    if (typeof raw === 'string' && /^(false|0)$/i.test(raw)) return false;
    throw fail('must be true or false');
  }
  if (kind === 'number' || kind === 'integer') {
    const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
    if (!Number.isFinite(n)) throw fail(kind === 'integer' ? 'must be an integer' : 'must be a number');
    if (kind === 'integer' && !Number.isInteger(n)) throw fail(`must be an integer (got ${JSON.stringify(raw)})`);
    return n;
  }
  if (kind === 'string') {
    if (typeof raw === 'string') return raw;
    throw fail('must be a string');
  }
  if (kind === 'strings') {
    if (Array.isArray(raw) && raw.every((x) => typeof x === 'string')) return raw;
    if (typeof raw === 'string') return raw.split(',').map((x) => x.trim()).filter((x) => x !== '');
    throw fail('must be a list of strings (comma-separated)');
  }
  if (kind === 'boolean|object') {
    if (typeof raw === 'boolean' || (typeof raw === 'object' && raw !== null)) return raw;
    if (typeof raw === 'string') {
      if (/^(true|1)$/i.test(raw)) return true;
      if (/^(false|0)$/i.test(raw)) return false;
      try {
        return JSON.parse(raw) as unknown;
      } catch {
        throw fail('must be true, false or a JSON object like {"limit":5,"windowMs":900000}');
      }
    }
    throw fail('must be true, false or an object');
  }
  if (kind === 'json') {
    if (typeof raw !== 'string') return raw;
    try {
      return JSON.parse(raw) as unknown;
    } catch (err) {
      throw fail(`must be JSON (${(err as Error).message})`);
    }
  }
  return raw;
}

/** Options holding secrets: on the command line they are visible to every user of the host (ps). */
const SECRET_OPTIONS = Object.entries(MONITORING_OPTIONS)
  .filter(([, spec]) => 'secret' in spec && spec.secret)
  .map(([name]) => name);

/**
 * Settings from, in increasing precedence: the --config JSON file, SVC_MONITOR_<OPTION>
 * environment variables, command-line flags.
 */
export function resolveServeSettings(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  defaults: { port: number },
  extraFlags: Record<string, 'boolean' | 'string' | 'number'> = {},
  warn: (message: string) => void = (m) => console.warn(m),
  stdoutIsTty: boolean = process.stdout.isTTY === true,
): ServeSettings {
  const kinds: Record<string, string> = { ...CLI_OPTION_KINDS, ...CLI_SETTINGS, ...extraFlags };
  const booleans = new Set(Object.entries(kinds).filter(([, k]) => k === 'boolean' || k === 'boolean|object').map(([n]) => n));
  const flags = parseFlags(argv, new Set(Object.keys(kinds)), booleans);

  const merged = new Map<string, unknown>();
  const configPath = (flags.get('config') as string | undefined) ?? env.SVC_MONITOR_CONFIG;
  if (configPath !== undefined) {
    let text: string;
    try {
      text = readFileSync(configPath, 'utf8');
    } catch (err) {
      throw new CliError(`Cannot read the config file ${configPath}: ${(err as Error).message}`);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      throw new CliError(`The config file ${configPath} is not valid JSON: ${(err as Error).message}`);
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json)) {
      throw new CliError(`The config file ${configPath} must hold a JSON object of options.`);
    }
    for (const [k, v] of Object.entries(json as Record<string, unknown>)) {
      if (k === 'config' || !(k in kinds)) throw new CliError(`The config file ${configPath} has an unknown option "${k}". See --help.`);
      merged.set(k, coerce(k, kinds[k]!, v, `config file ${configPath}`));
    }
  }
  for (const [name, kind] of Object.entries(kinds)) {
    if (name === 'config') continue;
    const v = env[camelToEnv(name)];
    if (v !== undefined && v !== '') merged.set(name, coerce(name, kind, v, `environment variable ${camelToEnv(name)}`));
  }
  for (const name of SECRET_OPTIONS) {
    if (flags.has(name)) {
      warn(
        `svc-monitor-server: warning: --${camelToKebab(name)} on the command line is visible to every user of this host (process list, shell history); set ${camelToEnv(name)} or use --config instead.`,
      );
    }
  }
  for (const [name, v] of flags) {
    if (name === 'config') continue;
    merged.set(name, coerce(name, kinds[name]!, v as FlagValue, 'command line'));
  }

  const port = (merged.get('port') as number | undefined) ?? defaults.port;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new OptionError('svc-monitor-server', 'port', `must be an integer in 0..65535 (got ${port})`);
  const durations = { drainDelayMs: STOP_DEFAULTS.drainDelayMs as number, stopGraceMs: STOP_DEFAULTS.stopGraceMs as number };
  for (const name of ['drainDelayMs', 'stopGraceMs'] as const) {
    const v = merged.get(name) as number | undefined;
    if (v === undefined) continue;
    if (v < 0 || v > 3_600_000) throw new OptionError('svc-monitor-server', name, `must be an integer in 0..3600000 milliseconds (got ${v})`);
    durations[name] = v;
  }
  const options: Record<string, unknown> = {};
  for (const [k, v] of merged) if (k in CLI_OPTION_KINDS) options[k] = v;
  const extras: Record<string, unknown> = {};
  for (const k of Object.keys(extraFlags)) if (merged.has(k)) extras[k] = merged.get(k);
  return {
    extras,
    db: merged.get('db') as string | undefined,
    database: merged.get('database') as string | undefined,
    port,
    host: (merged.get('host') as string | undefined) ?? '127.0.0.1',
    log: resolveLogSettings({ logFormat: merged.get('logFormat'), logLevel: merged.get('logLevel') }, stdoutIsTty),
    ...durations,
    options: options as MonitoringOptions,
  };
}
