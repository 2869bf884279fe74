import type { PoolClient } from 'pg';
import type { PostgresStorage } from '../PostgresStorage.js';
import type { AlertLeadership } from '../../AlertLeadership.js';

/**
 * The holder of a session advisory lock per schema on PostgreSQL, on a connection kept out of the
 * pool while held. A leader that dies (process or connection) loses the lock with its session, so
 * another process takes over at its next look (one second). A leader checks its connection at
 * each look and steps down when it fails. The storage's close ends the leadership (unlock, connection
 * back to the pool) if the host has not closed it first: a pool does not end while a connection is out.
 */
export function postgresLeadership(storage: PostgresStorage): AlertLeadership {
  const key = `svc_monitor.alerts:${storage.schema}`;
  let held: PoolClient | undefined;
  let closed = false;
  const drop = (client: PoolClient, broken: boolean) => {
    if (held === client) held = undefined;
    client.release(broken ? true : undefined);
  };
  const leadership: AlertLeadership = {
    async isLeader() {
      if (closed || storage.closed) return false;
      if (held !== undefined) {
        const client = held;
        try {
          await client.query('SELECT 1');
          return true;
        } catch {
          drop(client, true);
          return false;
        }
      }
      let client: PoolClient;
      try {
        client = await storage.pool.connect();
      } catch {
        return false;
      }
      try {
        const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [key]);
        if (rows[0]?.ok === true && !closed) {
          held = client;
          // An error on an idle held connection must not crash the process; the next look steps down.
          client.on('error', () => undefined);
          return true;
        }
        if (rows[0]?.ok === true) await client.query('SELECT pg_advisory_unlock(hashtext($1))', [key]);
        drop(client, false);
        return false;
      } catch {
        drop(client, true);
        return false;
      }
    },
    async close() {
      closed = true;
      forgetOnClose();
      const client = held;
      if (client === undefined) return;
      held = undefined;
      try {
        await client.query('SELECT pg_advisory_unlock(hashtext($1))', [key]);
        client.release();
      } catch {
        client.release(true);
      }
    },
  };
  const forgetOnClose = storage.onClose(() => leadership.close());
  return leadership;
}
