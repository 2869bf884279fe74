/**
 * PostgreSQL migration 4: list sort indexes on the columns that may be NULL.
 *
 * Lists sort NULLs lowest, as SQLite does: first ascending, last descending. A default B-tree
 * keeps NULLs last, so neither walk direction gives that order and every page sorted on these
 * columns read the whole table. With NULLS FIRST (and the insertion order as the tie-breaker) a
 * forward walk is ASC NULLS FIRST and a backward walk DESC NULLS LAST: a page is an index walk.
 */
const sortIndex = (name: string, column: string) => `
DROP INDEX IF EXISTS ${name};
CREATE INDEX ${name} ON tasks (${column} NULLS FIRST, seq);`;

export const pgMigration004SortIndexes = `
${sortIndex('ix_tasks_execution_time', 'execution_time_ms')}
${sortIndex('ix_tasks_last_execution', 'last_execution_at')}
${sortIndex('ix_tasks_scheduled', 'scheduled_at')}
${sortIndex('ix_tasks_started', 'started_at')}
`;
