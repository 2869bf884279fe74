import type { Database } from 'better-sqlite3';
import type { SchemaFeatures } from '../../common/SchemaFeatures.js';

/**
 * Resolves a substring against the small set of distinct task types (and handlers), so that
 * the task table is then read with `type IN (...)` on its index instead of a LIKE scan.
 */
export function createTypeResolver(db: Database, features: SchemaFeatures) {
  const typesByType = features.typeHandlerSet
    ? db.prepare(`SELECT DISTINCT type FROM monitor_type_handlers WHERE instr(lower(type), lower(?)) > 0`).pluck()
    : db.prepare(`SELECT DISTINCT type FROM stat_tasks WHERE instr(lower(type), lower(?)) > 0`).pluck();
  const pairsByHandler = features.typeHandlerSet
    ? db.prepare(`SELECT type, handler FROM monitor_type_handlers WHERE instr(lower(handler), lower(?)) > 0`)
    : undefined;
  return {
    /** Full type names containing `term` (case-insensitive). */
    types(term: string): string[] {
      return typesByType.all(term) as string[];
    },
    /** (type, handler) pairs whose handler contains `term`; undefined when the set is not kept. */
    handlerPairs(term: string): { type: string; handler: string }[] | undefined {
      return pairsByHandler?.all(term) as { type: string; handler: string }[] | undefined;
    },
  };
}
export type TypeResolver = ReturnType<typeof createTypeResolver>;
