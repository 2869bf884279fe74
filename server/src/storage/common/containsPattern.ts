/** A LIKE pattern (escape character `\`) that matches text containing `term`, its own %, _ and \ taken literally. */
export function containsPattern(term: string): string {
  return `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
