/**
 * The storage backends a suite runs against where the behaviour is the storage's: SQLite (the
 * embedded default) and PostgreSQL. `describe.each(BACKENDS)` parametrizes a suite.
 */
export type Backend = 'sqlite' | 'postgres';
export const BACKENDS: readonly Backend[] = ['sqlite', 'postgres'];
