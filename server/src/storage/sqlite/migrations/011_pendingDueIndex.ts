/**
 * Migration 11: the due-work index covers Pending rows only.
 *
 * The (status, scheduled_at) index served the reads that look for due work: promotion of Pending
 * rows whose time has come and the engine's next wake-up. Because it led with the status, every
 * claim and every run end (two status changes per task) moved an entry in it, for rows it would
 * never be asked about again. As a partial index over Pending rows it holds only rows waiting for
 * their time: a task dispatched to run now never enters it, and a delayed one leaves it once, when
 * it is promoted. The PostgreSQL schema made the same change.
 */
export const migration011PendingDueIndex = `
DROP INDEX IF EXISTS ix_tasks_due;
CREATE INDEX ix_tasks_pending_due ON tasks (scheduled_at) WHERE status = 'Pending';
`;
