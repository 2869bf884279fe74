/** The first non-empty line of an error text, at most 200 characters (as the list's error column). */
export function errorSummaryOf(text: string | undefined | null): string {
  if (!text) return '';
  const line = text.split(/\r?\n/).find((l) => l.trim() !== '')?.trim() ?? '';
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
