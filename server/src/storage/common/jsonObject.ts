/** The object a stored JSON text holds; undefined for an empty, unreadable or non-object text (never an error). */
export function jsonObject(text: string | null): Record<string, unknown> | undefined {
  if (text === null || text === '') return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  return typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : undefined;
}
