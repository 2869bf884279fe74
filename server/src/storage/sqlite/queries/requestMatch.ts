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

/** The same over task_search_rows (whose key is the full-text row's rowid). */
export const SEARCH_ROWS_REQUEST_MATCH_SQL = `id IN (SELECT rowid FROM task_request_fts WHERE task_request_fts MATCH ?)`;

/**
 * Key search: the term as one phrase of the trigram key index, which matches the keys that
 * contain it as a substring, letters compared case-insensitively. Quoted, so nothing in the term
 * is read as FTS5 syntax.
 */
export function keyMatchExpression(term: string): string {
  return `"${term.replace(/"/g, '""')}"`;
}

/** Rows whose task key contains the term bound (as `keyMatchExpression`) to the single parameter. */
export const KEY_MATCH_SQL = `id IN (SELECT s.task_id FROM task_search_rows s WHERE s.id IN (SELECT rowid FROM task_key_fts WHERE task_key_fts MATCH ?))`;

/** The same over task_search_rows. */
export const SEARCH_ROWS_KEY_MATCH_SQL = `id IN (SELECT rowid FROM task_key_fts WHERE task_key_fts MATCH ?)`;

/** A filter this store cannot evaluate (a database opened read-only with a schema older than the argument index). */
export class StoreCapabilityError extends Error {
  readonly status = 400;
  constructor(message: string) {
    super(message);
    this.name = 'StoreCapabilityError';
  }
}
