/**
 * PostgreSQL migration 6: the starts inside the rate-limit windows, shared by every instance
 * (a rate limit holds across all processes on the store). One row per start: the task type, the
 * row's rate-limit key ('' when it has none: keys are never empty) and the start instant. Rows
 * older than their window are deleted by the next claim of the type.
 */
export const pgMigration006RateLimitStarts = `
CREATE TABLE rate_limit_starts (
  type        TEXT COLLATE "C" NOT NULL,
  rate_key    TEXT COLLATE "C" NOT NULL,
  started_at  BIGINT NOT NULL
);
CREATE INDEX ix_rate_limit_starts ON rate_limit_starts (type, started_at);
`;
