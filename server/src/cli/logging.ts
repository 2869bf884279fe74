import { hostname } from 'node:os';
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import type { SvcEvent } from '../contracts/index.js';
import { loadedTracing } from '../engine/tracing.js';
import { OptionError } from '../options/OptionError.js';
import { camelToEnv, camelToKebab } from './parseFlags.js';

/** json: one JSON object a line (for collectors); pretty: a human line with colours; text: the same without. */
export const LOG_FORMATS = ['json', 'pretty', 'text'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface LogSettings {
  format: LogFormat;
  level: LogLevel;
}

/** Secrets shorter than this are not scrubbed from messages (they would match ordinary words). */
const MIN_SCRUBBED_LENGTH = 8;
const REDACTED = '[redacted]';

/**
 * The log settings from --log-format / --log-level (or their environment variables): the format
 * defaults to json when stdout is not a terminal, pretty when it is; a bad value names the option.
 */
export function resolveLogSettings(raw: { logFormat?: unknown; logLevel?: unknown }, stdoutIsTty: boolean, source = 'svc-monitor-server'): LogSettings {
  const pick = <T extends string>(name: 'logFormat' | 'logLevel', allowed: readonly T[], fallback: T): T => {
    const v = raw[name];
    if (v === undefined) return fallback;
    if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
      throw new OptionError(source, name, `must be one of ${allowed.join(', ')} (got ${JSON.stringify(v)}; --${camelToKebab(name)}, ${camelToEnv(name)})`);
    }
    return v as T;
  };
  return { format: pick('logFormat', LOG_FORMATS, stdoutIsTty ? 'pretty' : 'json'), level: pick('logLevel', LOG_LEVELS, 'info') };
}

const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const LEVEL_COLOURS: Record<number, string> = { 10: '90', 20: '36', 30: '32', 40: '33', 50: '31', 60: '35' };
/** Fields every line has, not repeated as key=value in the human formats. */
const HEADER_FIELDS = new Set(['level', 'time', 'msg', 'pid', 'hostname']);

/** A stream turning pino's JSON lines into `time LEVEL message key=value…` lines. */
function humanStream(out: NodeJS.WritableStream, colours: boolean): Writable {
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line === '') continue;
        let entry: Record<string, unknown>;
        try {
          entry = JSON.parse(line) as Record<string, unknown>;
        } catch {
          out.write(`${line}\n`);
          continue;
        }
        const level = Number(entry.level);
        const name = (LEVEL_NAMES[level] ?? String(entry.level)).padEnd(5);
        const time = new Date(Number(entry.time)).toISOString();
        const fields = Object.entries(entry)
          .filter(([k]) => !HEADER_FIELDS.has(k))
          .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
        const head = colours ? `\u001b[${LEVEL_COLOURS[level] ?? '0'}m${name}\u001b[0m` : name;
        out.write(`${time} ${head} ${String(entry.msg ?? '')}${fields.length > 0 ? `  ${fields.join(' ')}` : ''}\n`);
      }
      done();
    },
  });
}

/** Replaces each known secret value in `text` (a message can quote an option or a URL). */
function scrubber(secrets: readonly string[]): (text: string) => string {
  const values = [...new Set(secrets.filter((s) => s.length >= MIN_SCRUBBED_LENGTH))].sort((a, b) => b.length - a.length);
  if (values.length === 0) return (text) => text;
  return (text) => {
    let out = text;
    for (const v of values) out = out.split(v).join(REDACTED);
    return out;
  };
}

export interface CliLoggerOptions {
  /** Secret values (passwords, tokens, webhook secrets) scrubbed from every message. */
  secrets?: readonly string[];
  /** Written on every line (the engine's instance id, when there is an engine). */
  engineInstance?: string;
  /** Where lines go (default stdout). */
  destination?: NodeJS.WritableStream;
}

/**
 * The CLI's logger (pino): level, time, message, pid and host on every line, the engine instance
 * when there is one, `trace_id` / `span_id` when a trace span is active. Never a secret: the
 * Authorization and Cookie headers and secret-named fields are redacted wherever they appear,
 * and known secret values are scrubbed from message text.
 */
export function createCliLogger(settings: LogSettings, options: CliLoggerOptions = {}): Logger {
  const out = options.destination ?? process.stdout;
  const scrub = scrubber(options.secrets ?? []);
  const stream = settings.format === 'json' ? out : humanStream(out, settings.format === 'pretty');
  return pino(
    {
      level: settings.level,
      base: { pid: process.pid, hostname: hostname(), ...(options.engineInstance ? { engine_instance: options.engineInstance } : {}) },
      messageKey: 'msg',
      timestamp: pino.stdTimeFunctions.epochTime,
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          'headers.authorization',
          'headers.cookie',
          '*.password',
          '*.token',
          '*.secret',
          '*.jwtSecret',
          '*.magicLinkToken',
          '*.managementPassword',
          '*.metricsToken',
          'password',
          'token',
          'secret',
        ],
        censor: REDACTED,
      },
      hooks: {
        logMethod(args, method) {
          const scrubbed = args.map((a: unknown) => (typeof a === 'string' ? scrub(a) : a instanceof Error ? Object.assign(a, { message: scrub(a.message) }) : a));
          method.apply(this, scrubbed as Parameters<typeof method>);
        },
      },
      mixin() {
        const span = loadedTracing()?.trace.getActiveSpan();
        if (span === undefined) return {};
        const { traceId, spanId } = span.spanContext();
        return { trace_id: traceId, span_id: spanId };
      },
    },
    stream,
  );
}

/** The monitoring's `{ info, warn }` logger over a pino logger. */
export function monitoringLoggerOf(logger: Logger): { info(message: string): void; warn(message: string): void } {
  return { info: (m) => logger.info(m), warn: (m) => logger.warn(m) };
}

/** The secret values of the monitoring options (and the webhook secrets of alert rules) to scrub from logs. */
export function secretValuesOf(options: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const name of ['password', 'jwtSecret', 'magicLinkToken', 'managementPassword', 'metricsToken']) {
    const v = options[name];
    if (typeof v === 'string') out.push(v);
  }
  const alerts = options.alerts;
  if (Array.isArray(alerts)) {
    for (const rule of alerts as Array<{ webhook?: { secret?: unknown; url?: unknown } }>) {
      const secret = rule?.webhook?.secret;
      for (const s of Array.isArray(secret) ? secret : [secret]) if (typeof s === 'string') out.push(s);
      // Chat webhook addresses carry their credential in the path.
      if (typeof rule?.webhook?.url === 'string') out.push(rule.webhook.url);
    }
  }
  return out;
}

/** Task ends as log lines with their task id: failures and timeouts at warn, the rest at debug. */
export function logEngineEvents(engine: { on(event: 'event', listener: (e: SvcEvent) => void): unknown }, logger: Logger): void {
  engine.on('event', (e) => {
    const fields = { task_id: e.taskId, task_type: e.taskType, queue: e.queueName ?? 'default', event: e.kind, ...(e.attempt !== undefined ? { attempt: e.attempt } : {}) };
    if (e.kind === 'Failed' || e.kind === 'Timeout') logger.warn(fields, e.message);
    else logger.debug(fields, e.message);
  });
}

/** The engine's error reports (`onError`) as error lines naming where they happened. */
export function engineErrorLogger(logger: Logger): (err: unknown, where: string) => void {
  return (err, where) => logger.error({ err, where }, `engine: ${where}: ${err instanceof Error ? err.message : String(err)}`);
}
