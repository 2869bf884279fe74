/**
 * PostgreSQL migration 10: reserved rows stay Queued; runs carry a token (see the SQLite twin).
 *
 * A reserved row cancelled by any process (monitoring, bulk cancel, a schedule cancel, another
 * instance) NOTIFYs the wake channel with `reservation-lost:<instance>:<task id>`, so the instance
 * holding it forgets it before its handler can begin.
 */
export const pgMigration010Reservations = `
ALTER TABLE tasks ADD COLUMN reserved_by TEXT;
ALTER TABLE tasks ADD COLUMN reserved_at BIGINT;
ALTER TABLE tasks ADD COLUMN run_token TEXT;

CREATE FUNCTION svc_reservation_lost() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify(current_schema() || '_wake', 'reservation-lost:' || OLD.reserved_by || ':' || OLD.id);
  RETURN NULL;
END $$;

CREATE TRIGGER tr_tasks_reservation_lost AFTER UPDATE OF status ON tasks
  FOR EACH ROW WHEN (OLD.status = 'Queued' AND NEW.status <> 'Queued' AND NEW.status <> 'InProgress' AND OLD.reserved_by IS NOT NULL)
  EXECUTE FUNCTION svc_reservation_lost();
`;
