// A PostgreSQL database of its own for one bench measurement: created on the server `adminUrl`
// names, dropped afterwards (also when the measurement throws).
import { randomUUID } from 'node:crypto';
import pg from 'pg';

/** Runs one statement (CREATE or DROP DATABASE) on its own connection to the server `adminUrl` names. */
export async function admin(adminUrl: string, sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** Runs `work` with the connection string of a fresh database named `<prefix>_<time>_<random>`. */
export async function withBenchDatabase<T>(adminUrl: string, prefix: string, work: (url: string) => Promise<T>): Promise<T> {
  const name = `${prefix}_${Date.now().toString(36)}_${randomUUID().slice(0, 8)}`;
  await admin(adminUrl, `CREATE DATABASE "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  try {
    return await work(url.toString());
  } finally {
    await admin(adminUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  }
}
