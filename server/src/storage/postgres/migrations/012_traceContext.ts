/**
 * Migration 12: the W3C trace context of the dispatch that created a task (`traceparent`,
 * `tracestate`), so that every run of the task continues its trace, on whichever instance it runs.
 * Null when no tracer was registered at dispatch.
 */
export const pgMigration012TraceContext = `
ALTER TABLE tasks ADD COLUMN traceparent TEXT;
ALTER TABLE tasks ADD COLUMN tracestate TEXT;
`;
