/** Longest fingerprint kept: the group's label and key. */
const MAX_FINGERPRINT = 240;

/**
 * The fingerprint of an exception text that groups failures: its first non-empty line with the
 * parts that differ between otherwise identical failures masked: quoted values → "…",
 * GUIDs, long hex ids and numbers → #. Two failures with the same fingerprint and task type
 * are one failure group.
 */
export function failureFingerprint(exception: string | null | undefined): string {
  if (exception === null || exception === undefined) return '(no error text)';
  const first = exception.split(/\r?\n/).find((l) => l.trim() !== '')?.trim() ?? '';
  if (first === '') return '(no error text)';
  const masked = first
    .replace(/"(?:[^"\\]|\\.)*"/g, '"…"')
    .replace(/'(?:[^'\\]|\\.)*'/g, "'…'")
    .replace(/`[^`]*`/g, '`…`')
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '#')
    .replace(/\b(?:0x)?[0-9a-f]*\d[0-9a-f]*\b/gi, (m) => (/^(?:0x)?[0-9a-f]{6,}$/i.test(m) || /^\d+$/.test(m) ? '#' : m))
    .replace(/\d+(?:[.,:]\d+)*/g, '#')
    .replace(/\s+/g, ' ');
  return masked.length > MAX_FINGERPRINT ? `${masked.slice(0, MAX_FINGERPRINT - 1)}…` : masked;
}
