import type { PoolClient } from 'pg';
import { pgMigrations, type PgMigration } from './migrations/index.js';

/** The advisory lock key of a schema's migrations (same for every process using that schema). */
export const migrationLockSql = `SELECT pg_advisory_lock(hashtext('svc_monitor.migrate:' || $1))`;
const unlockSql = `SELECT pg_advisory_unlock(hashtext('svc_monitor.migrate:' || $1))`;

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * Creates the schema and applies, in version order, every listed migration that `schema_migrations`
 * does not record, each in its own transaction, under a session advisory lock: instances starting
 * at once wait for the first one and then find nothing left to apply. A version below the highest
 * applied one still runs when it is missing (two branches that each added a migration, merged in
 * the other order); a recorded version newer than this build knows refuses the open. Returns the
 * versions this call applied.
 */
export async function migratePostgres(
  client: PoolClient,
  schema: string,
  list: readonly PgMigration[] = pgMigrations,
): Promise<number[]> {
  const applied: number[] = [];
  await client.query(migrationLockSql, [schema]);
  try {
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
    await client.query(`SET search_path TO ${quoteIdent(schema)}`);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`);
    const { rows } = await client.query<{ version: number }>(`SELECT version FROM schema_migrations`);
    const done = new Set(rows.map((r) => r.version));
    const current = Math.max(0, ...done);
    const latest = list.length === 0 ? 0 : list[list.length - 1]!.version;
    if (current > latest) {
      throw new Error(
        `The database schema "${schema}" is at version ${current}, newer than this build supports (${latest}); upgrade svc-monitor-server.`,
      );
    }
    for (const m of list) {
      if (done.has(m.version)) continue;
      await client.query('BEGIN');
      try {
        await client.query(m.sql);
        await client.query(`INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, [m.version, m.name]);
        await client.query('COMMIT');
      } catch (err) {
        // A connection lost mid-migration cannot roll back; the server already did. Report the cause.
        await client.query('ROLLBACK').catch(() => undefined);
        throw new Error(`PostgreSQL migration ${m.version} (${m.name}) failed: ${(err as Error).message}`);
      }
      applied.push(m.version);
    }
  } catch (err) {
    // The session lock ends with the session when the connection is gone; unlock only a live one.
    await client.query(unlockSql, [schema]).catch(() => undefined);
    throw err;
  }
  await client.query(unlockSql, [schema]);
  return applied;
}
