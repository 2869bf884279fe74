import type { Request } from 'express';
import type { QueryParamSpec } from '../../contracts/index.js';
import { BadRequestError } from './problem.js';

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;
const INTEGER = /^[+-]?\d+$/;

/**
 * Query string access independent of the host's `query parser` setting: parameter names are
 * case-insensitive (like the reference implementation's model binding); values are strings.
 */
export class QueryParams {
  private readonly values = new Map<string, string[]>();

  constructor(req: Request) {
    const q = req.originalUrl.indexOf('?');
    const search = q >= 0 ? req.originalUrl.slice(q + 1) : '';
    let params: URLSearchParams;
    try {
      params = new URLSearchParams(search);
    } catch {
      params = new URLSearchParams();
    }
    for (const [k, v] of params) {
      const key = k.toLowerCase();
      const list = this.values.get(key) ?? [];
      list.push(v);
      this.values.set(key, list);
    }
  }

  /** The first non-empty value, or undefined. */
  string(name: string): string | undefined {
    const v = this.values.get(name.toLowerCase())?.find((x) => x !== '');
    return v;
  }

  /** Every value, comma-separated values split. */
  list(name: string): string[] {
    return (this.values.get(name.toLowerCase()) ?? [])
      .flatMap((v) => v.split(','))
      .map((v) => v.trim())
      .filter((v) => v !== '');
  }

  bool(name: string): boolean | undefined {
    const v = this.string(name);
    if (v === undefined) return undefined;
    const l = v.trim().toLowerCase();
    if (l === 'true' || l === '1') return true;
    if (l === 'false' || l === '0') return false;
    throw BadRequestError.of(name, `The value '${v}' is not a valid boolean (true or false).`);
  }

  /** An integer clamped to [min, max]; out-of-range magnitudes clamp instead of failing. */
  int(name: string, fallback: number, min: number, max: number): number {
    const v = this.string(name);
    if (v === undefined) return fallback;
    const t = v.trim();
    if (!INTEGER.test(t)) throw BadRequestError.of(name, `The value '${v}' is not a valid integer.`);
    const n = Number(t);
    return Math.min(max, Math.max(min, n));
  }

  /** An integer parameter of the route catalogue: its default when absent, clamped to its bounds. */
  intOf(spec: QueryParamSpec): number {
    return this.int(spec.name, Number(spec.default ?? 0), spec.min ?? Number.MIN_SAFE_INTEGER, spec.max ?? Number.MAX_SAFE_INTEGER);
  }

  /** An enum parameter of the route catalogue: one of its values (any case), its default when absent. */
  enumOf<T extends string>(spec: QueryParamSpec & { values: readonly T[] }): T | undefined {
    return this.enumValue(spec.name, spec.values) ?? (spec.default as T | undefined);
  }

  guid(name: string): string | undefined {
    const v = this.string(name);
    if (v === undefined) return undefined;
    return parseGuid(name, v);
  }

  date(name: string): number | undefined {
    const v = this.string(name);
    if (v === undefined) return undefined;
    return parseDate(name, v);
  }

  enumValue<T extends string>(name: string, allowed: readonly T[]): T | undefined {
    const v = this.string(name);
    if (v === undefined) return undefined;
    return parseEnum(name, v, allowed);
  }
}

export function parseGuid(name: string, v: string): string {
  const t = v.trim().replace(/^\{(.*)\}$/, '$1');
  if (!GUID.test(t)) throw BadRequestError.of(name, `The value '${v}' is not a valid GUID.`);
  return t.toLowerCase();
}

/** Date.parse rolls impossible days over (2024-02-30 is March 1st): the day must exist in its month. */
function isCalendarDate(t: string): boolean {
  const [y, m, d] = [Number(t.slice(0, 4)), Number(t.slice(5, 7)), Number(t.slice(8, 10))];
  return m >= 1 && m <= 12 && d >= 1 && d <= new Date(Date.UTC(y, m, 0)).getUTCDate();
}

export function parseDate(name: string, v: string): number {
  const t = v.trim().replace(' ', 'T');
  const ms = ISO_DATE.test(t) && isCalendarDate(t) ? Date.parse(/[zZ]|[+-]\d{2}:?\d{2}$/.test(t) || t.length === 10 ? t : `${t}Z`) : NaN;
  if (!Number.isFinite(ms)) throw BadRequestError.of(name, `The value '${v}' is not a valid ISO 8601 date.`);
  return ms;
}

export function parseEnum<T extends string>(name: string, v: string, allowed: readonly T[]): T {
  const found = allowed.find((a) => a.toLowerCase() === v.trim().toLowerCase());
  if (found === undefined) {
    throw BadRequestError.of(name, `The value '${v}' is not valid. Allowed values: ${allowed.join(', ')}.`);
  }
  return found;
}
