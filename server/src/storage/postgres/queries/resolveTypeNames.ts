import type { PgQuery } from './PgQuery.js';

/**
 * Resolves a substring against the small set of distinct (type, handler) pairs, so that the task
 * table is then read with `type = ANY(...)` on its index instead of a substring scan.
 */
export function pgTypeResolver(q: PgQuery) {
  return {
    /** Full type names containing `term` (case-insensitive). */
    async types(term: string): Promise<string[]> {
      const rows = await q<{ type: string }>(
        `SELECT DISTINCT type FROM monitor_type_handlers WHERE strpos(lower(type), lower($1)) > 0`,
        [term],
      );
      return rows.map((r) => r.type);
    },
    /** (type, handler) pairs whose handler contains `term`. */
    async handlerPairs(term: string): Promise<{ type: string; handler: string }[]> {
      return q<{ type: string; handler: string }>(
        `SELECT type, handler FROM monitor_type_handlers WHERE strpos(lower(handler), lower($1)) > 0`,
        [term],
      );
    },
  };
}
export type PgTypeResolver = ReturnType<typeof pgTypeResolver>;
