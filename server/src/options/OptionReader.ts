import { OptionError } from './OptionError.js';

/** The kinds of option values, as tables and `--help` name them. */
export type OptionKind = 'boolean' | 'string' | 'integer' | 'number' | 'strings' | 'function' | 'object' | 'boolean|object' | 'json';

export interface NumberBounds {
  /** Smallest accepted value (inclusive unless `above`). */
  min?: number;
  /** The value must be greater than `min`. */
  above?: boolean;
  max?: number;
}

/**
 * Reads one owner's options object: every accessor checks the kind of one option and answers
 * its value or the fallback when it is absent; anything else throws an OptionError naming the
 * owner and the option. Unknown keys are refused up front when `known` is given. A nested
 * object is read by a child reader whose errors name the full path (`queues.mail.concurrency`).
 */
export class OptionReader<O extends object = Record<string, unknown>> {
  private readonly raw: Record<string, unknown>;

  constructor(
    readonly owner: string,
    raw: unknown,
    known?: Iterable<string>,
    /** Where this object sits in the owner's options (`retry`), for nested readers. */
    readonly path?: string,
  ) {
    if (raw === undefined) raw = {};
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new OptionError(owner, path ?? 'options', 'must be an object');
    this.raw = raw as Record<string, unknown>;
    if (known) {
      const names = new Set(known);
      for (const key of Object.keys(this.raw)) if (!names.has(key)) throw OptionError.unknown(owner, this.nameOf(key));
    }
  }

  /** The option's name as errors give it (with the path of a nested reader). */
  nameOf(name: string): string {
    return this.path === undefined ? name : `${this.path}.${name}`;
  }

  /** The keys present (in their order). */
  keys(): string[] {
    return Object.keys(this.raw).filter((k) => this.raw[k] !== undefined);
  }

  /** The reader of a nested object option (absent: an empty one); `known` refuses other keys. */
  child(name: keyof O & string, known?: Iterable<string>): OptionReader {
    return new OptionReader(this.owner, this.raw[name], known, this.nameOf(name));
  }

  /** The raw value (undefined when absent). */
  value(name: keyof O & string): unknown {
    return this.raw[name];
  }

  has(name: keyof O & string): boolean {
    return this.raw[name] !== undefined;
  }

  fail(name: keyof O & string, detail: string): OptionError {
    return new OptionError(this.owner, this.nameOf(name), detail);
  }

  boolean(name: keyof O & string, fallback: boolean): boolean {
    const v = this.raw[name];
    if (v === undefined) return fallback;
    if (typeof v !== 'boolean') throw this.fail(name, 'must be a boolean');
    return v;
  }

  /** A string; empty is refused unless `allowEmpty`; null reads as absent. */
  string<F extends string | null | undefined>(name: keyof O & string, fallback: F, options: { allowEmpty?: boolean } = {}): string | F {
    const v = this.raw[name];
    if (v === undefined || v === null) return fallback;
    if (typeof v !== 'string') throw this.fail(name, 'must be a string');
    if (!options.allowEmpty && v.trim().length === 0) throw this.fail(name, 'must not be empty');
    return v;
  }

  integer(name: keyof O & string, fallback: number, bounds: NumberBounds = {}): number {
    return this.numeric(name, fallback, bounds, true);
  }

  number(name: keyof O & string, fallback: number, bounds: NumberBounds = {}): number {
    return this.numeric(name, fallback, bounds, false);
  }

  /** An array of strings, trimmed, empty entries dropped; absent or null → []. */
  strings(name: keyof O & string): string[] {
    const v = this.raw[name];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw this.fail(name, 'must be an array of strings');
    return (v as string[]).map((x) => x.trim()).filter((x) => x !== '');
  }

  oneOf<T extends string>(name: keyof O & string, allowed: readonly T[], fallback: T): T {
    const v = this.raw[name];
    if (v === undefined) return fallback;
    if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) throw this.fail(name, `must be one of ${allowed.join(', ')}`);
    return v as T;
  }

  /** A point in time: a Date, an ISO 8601 string or milliseconds since the epoch → milliseconds. */
  instant(name: keyof O & string): number | undefined {
    const v = this.raw[name];
    if (v === undefined) return undefined;
    const ms = v instanceof Date ? v.getTime() : typeof v === 'number' ? v : typeof v === 'string' ? Date.parse(v) : NaN;
    if (!Number.isFinite(ms)) throw this.fail(name, 'must be a valid date (Date, ISO 8601 string or ms)');
    return ms;
  }

  fn<T>(name: keyof O & string): T | null {
    const v = this.raw[name];
    if (v === undefined || v === null) return null;
    if (typeof v !== 'function') throw this.fail(name, 'must be a function');
    return v as T;
  }

  private numeric(name: keyof O & string, fallback: number, bounds: NumberBounds, integer: boolean): number {
    const v = this.raw[name];
    if (v === undefined) return fallback;
    const what = integer ? 'an integer' : 'a number';
    const range =
      bounds.min !== undefined && bounds.max !== undefined
        ? ` in ${bounds.min}..${bounds.max}`
        : bounds.min !== undefined
          ? ` ${bounds.above ? '>' : '≥'} ${bounds.min}`
          : bounds.max !== undefined
            ? ` ≤ ${bounds.max}`
            : '';
    const ok =
      typeof v === 'number' &&
      Number.isFinite(v) &&
      (!integer || Number.isInteger(v)) &&
      (bounds.min === undefined || (bounds.above ? v > bounds.min : v >= bounds.min)) &&
      (bounds.max === undefined || v <= bounds.max);
    if (!ok) throw this.fail(name, `must be ${what}${range} (got ${JSON.stringify(v) ?? String(v)})`);
    return v as number;
  }
}
