import type { ReadDb } from './ReadDb.js';

/**
 * Resolves a substring against the small set of distinct task types (and handlers), so that the
 * task table is then read with `type IN (...)` on its index instead of a substring scan.
 */
export function createTypeResolver(db: ReadDb) {
  const { contains, model } = db.dialect;
  // A store from before the (type, handler) set reads the types from the task counters.
  const typesSql = `SELECT DISTINCT type FROM ${db.features.typeHandlerSet ? 'monitor_type_handlers' : model('stat_tasks')} WHERE ${contains('type')}`;
  const pairsSql = `SELECT type, handler FROM monitor_type_handlers WHERE ${contains('handler')}`;
  return {
    /** Full type names containing `term` (case-insensitive). */
    async types(term: string): Promise<string[]> {
      return (await db.query<{ type: string }>(typesSql, [term])).map((r) => r.type);
    },
    /** (type, handler) pairs whose handler contains `term`; undefined where the set is not kept. */
    async handlerPairs(term: string): Promise<{ type: string; handler: string }[] | undefined> {
      return db.features.typeHandlerSet ? db.query<{ type: string; handler: string }>(pairsSql, [term]) : undefined;
    },
  };
}
export type TypeResolver = ReturnType<typeof createTypeResolver>;
