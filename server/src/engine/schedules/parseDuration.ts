const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * `every` values: a positive number of milliseconds, or a string of one or more
 * `<number><unit>` parts with units ms, s, m, h, d ('5m', '1h30m', '250ms').
 * Returns null when the value is not a valid positive duration.
 */
export function parseDuration(value: number | string): number | null {
  if (typeof value === 'number') return Number.isInteger(value) && value > 0 ? value : null;
  if (typeof value !== 'string') return null;
  const text = value.trim();
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy;
  let total = 0;
  let matched = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    matched = re.lastIndex;
  }
  if (matched === 0 || matched !== text.length) return null;
  const ms = Math.round(total);
  return ms > 0 ? ms : null;
}
