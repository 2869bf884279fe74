/**
 * Migration 14: the W3C trace context of the dispatch that created a task (`traceparent`,
 * `tracestate`), so that every run of the task — retries, runs after a crash, runs on another
 * instance — continues its trace. Null when no tracer was registered at dispatch.
 */
export const migration014TraceContext = `
ALTER TABLE tasks ADD COLUMN traceparent TEXT;
ALTER TABLE tasks ADD COLUMN tracestate TEXT;
`;
