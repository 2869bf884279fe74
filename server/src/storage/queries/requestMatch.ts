/**
 * Argument search: each term (a word or a quoted phrase of the user's query) becomes one FTS5
 * phrase, all of them required. Terms are always quoted, so no FTS5 syntax in user input is
 * interpreted (operators, column filters, NEAR).
 */
export function requestMatchExpression(terms: readonly string[]): string {
  return terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(' AND ');
}

/** Rows whose request JSON matches the FTS5 expression bound to the single parameter. */
export const REQUEST_MATCH_SQL = `id IN (SELECT s.task_id FROM task_search_rows s WHERE s.id IN (SELECT rowid FROM task_request_fts WHERE task_request_fts MATCH ?))`;

/** A filter this store cannot evaluate (a database opened read-only with a schema older than the argument index). */
export class StoreCapabilityError extends Error {
  readonly status = 400;
  constructor(message: string) {
    super(message);
    this.name = 'StoreCapabilityError';
  }
}
