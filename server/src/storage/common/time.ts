/** Storage keeps UTC instants as integer milliseconds; the wire uses ISO 8601 strings. */
export function toIso(ms: number): string;
export function toIso(ms: number | null | undefined): string | undefined;
export function toIso(ms: number | null | undefined): string | undefined {
  return ms === null || ms === undefined ? undefined : new Date(ms).toISOString();
}
