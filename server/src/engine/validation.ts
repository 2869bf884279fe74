import type { AuditLevel } from '../contracts/index.js';
import { OptionError } from '../options/OptionError.js';
import { OptionReader } from '../options/OptionReader.js';
import { hasUnstorable, storableJson, storableText } from './storableText.js';

export const AUDIT_LEVELS: readonly AuditLevel[] = ['Full', 'ErrorsOnly', 'None'];

/**
 * The engine's checks of one value, on the shared option reader. A value is named
 * `<owner>: option "<name>"` (e.g. `dispatch: option "queue"`, `handle("A.B"): option
 * "rateLimit"`): it is read as option `<name>` of `<owner>`, so a refusal is an OptionError
 * carrying both. Another description (`handle: type`, an argument rather than an option) is
 * refused with a plain TypeError.
 */
export function optionRef(name: string): { owner: string; option: string } | undefined {
  const m = /^(.+?): option "(.+)"$/.exec(name);
  return m ? { owner: m[1]!, option: m[2]! } : undefined;
}

/** An OptionError for the value `name` describes (a TypeError when it names no option). */
export function refuse(name: string, detail: string): TypeError {
  const ref = optionRef(name);
  return ref ? new OptionError(ref.owner, ref.option, detail) : new TypeError(`${name} ${detail}`);
}

/** A reader of the single value `name` describes. */
function readOne(name: string, value: unknown): { read: OptionReader; option: string } | undefined {
  const ref = optionRef(name);
  return ref ? { read: new OptionReader(ref.owner, { [ref.option]: value }), option: ref.option } : undefined;
}

/** `what` is an owner (`dispatch`) or a nested option (`createEngine: option "queues.mail"`): unknown keys are named in full. */
export function assertKnownKeys(value: object, known: ReadonlySet<string>, what: string): void {
  const ref = optionRef(what);
  new OptionReader(ref?.owner ?? what, value, known, ref?.option);
}

/** `what` is `<owner>: options` or `<owner>: option "<name>"`. */
export function assertPlainObject(value: unknown, what: string): asserts value is Record<string, unknown> {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return;
  const whole = /^(.+?): options$/.exec(what);
  if (whole) throw new OptionError(whole[1]!, 'options', 'must be an object');
  throw refuse(what, 'must be an object');
}

export function checkAuditLevel(value: unknown, name: string): AuditLevel | undefined {
  if (value === undefined) return undefined;
  const one = readOne(name, value);
  if (one) return one.read.oneOf(one.option, AUDIT_LEVELS, 'Full');
  if (typeof value !== 'string' || !(AUDIT_LEVELS as readonly string[]).includes(value)) throw refuse(name, `must be one of ${AUDIT_LEVELS.join(', ')}`);
  return value as AuditLevel;
}

export function checkInt(value: unknown, name: string, min: number): number | undefined {
  if (value === undefined) return undefined;
  const one = readOne(name, value);
  if (one) return one.read.integer(one.option, min, { min });
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) throw refuse(name, `must be an integer ≥ ${min}`);
  return value;
}

export function checkNonEmptyString(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim().length === 0) throw refuse(name, 'must be a non-empty string');
  return value;
}

/** Why a name (type, queue, key) cannot be stored as given, or undefined when it can. */
export const UNSTORABLE_NAME = 'must not contain U+0000 or an unpaired UTF-16 surrogate (no store keeps them in a name)';

/**
 * A non-empty name that every store keeps exactly (a type, queue, task key, rate-limit key): one
 * with U+0000 (PostgreSQL text refuses it) or an unpaired surrogate is refused on every backend
 * alike, before anything is written. Names are identities, so they are refused, never altered.
 */
export function checkStorableName(value: unknown, name: string): string | undefined {
  const text = checkNonEmptyString(value, name);
  if (text !== undefined && hasUnstorable(text)) throw refuse(name, UNSTORABLE_NAME);
  return text;
}

/** Date, ISO string or ms since epoch → ms; throws naming the option when invalid. */
export function checkInstant(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  const one = readOne(name, value);
  if (one) return one.read.instant(one.option);
  const ms = value instanceof Date ? value.getTime() : typeof value === 'number' ? value : typeof value === 'string' ? Date.parse(value) : NaN;
  if (!Number.isFinite(ms)) throw refuse(name, 'must be a valid date (Date, ISO 8601 string or ms)');
  return ms;
}

/**
 * Serialises a request to JSON text, refusing what JSON would silently lose or cannot encode:
 * functions, symbols, BigInt, non-finite numbers, Map/Set, cycles. The error names the path.
 */
export function serializeRequest(request: unknown): string {
  if (request === undefined) return 'null';
  const seen = new Set<object>();
  const walk = (v: unknown, path: string): void => {
    switch (typeof v) {
      case 'function':
      case 'symbol':
      case 'bigint':
        throw new TypeError(`request is not JSON-serialisable: ${path} is a ${typeof v}`);
      case 'number':
        if (!Number.isFinite(v)) throw new TypeError(`request is not JSON-serialisable: ${path} is ${v}`);
        return;
      case 'object': {
        if (v === null) return;
        if (v instanceof Map || v instanceof Set) {
          throw new TypeError(`request is not JSON-serialisable: ${path} is a ${v instanceof Map ? 'Map' : 'Set'}`);
        }
        if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return;
        if (seen.has(v)) throw new TypeError(`request is not JSON-serialisable: ${path} is a circular reference`);
        seen.add(v);
        if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${path}[${i}]`));
        else for (const [k, x] of Object.entries(v)) if (x !== undefined) walk(x, `${path}.${k}`);
        seen.delete(v);
        return;
      }
      default:
        return;
    }
  };
  walk(request, 'request');
  const text = JSON.stringify(request);
  if (typeof text !== 'string') throw new TypeError('request is not JSON-serialisable');
  return storableJson(text);
}

/** Error text kept on rows and audits: the stack when there is one (first line is `Name: message`), storable (storableText). */
export function errorText(err: unknown): string {
  return storableText(rawErrorText(err));
}

function rawErrorText(err: unknown): string {
  if (err instanceof Error) return err.stack ?? `${err.name}: ${err.message}`;
  if (typeof err === 'string') return err;
  try {
    return JSON.stringify(err) ?? String(err);
  } catch {
    return String(err);
  }
}

/** The message of an error (events, log lines), storable like errorText. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return storableText(err.message);
  return typeof err === 'string' ? storableText(err) : errorText(err);
}
