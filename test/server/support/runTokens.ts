import type { RunnableTaskRow, StartedRun } from '../../../server/src/storage/EngineStore.js';

/** The run token a store-level test gives the run of a row (the engine makes its own). */
export const tokenOf = (id: string): string => `test-run:${id}`;

/** The starts of claimed (reserved) rows, as the engine writes them when their handlers begin at `at`. */
export const startsOf = (rows: readonly RunnableTaskRow[], at: number): StartedRun[] =>
  rows.map((r) => ({ id: r.id, reservedAt: r.reserved_at, auditLevel: r.audit_level, startedAt: at, token: tokenOf(r.id) }));
