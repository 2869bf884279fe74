import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The server the tests use (trust authentication for user postgres on this machine kind). */
export const PG_ADMIN_URL = process.env.SVC_MONITOR_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  name: string;
  connectionString: string;
  /** Drops the database (terminating leftover connections). */
  drop(): Promise<void>;
}

const withAdmin = async <T>(work: (c: pg.Client) => Promise<T>): Promise<T> => {
  const c = new pg.Client({ connectionString: PG_ADMIN_URL });
  await c.connect();
  try {
    return await work(c);
  } finally {
    await c.end();
  }
};

/** The connection string of database `name` on the test server. */
export function testDatabaseUrl(name: string): string {
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * Creates a uniquely named database for one suite (or the one named `exactName`); `drop()` removes
 * it. With `template`, the new database starts as a copy of that one (a file copy on the server,
 * much cheaper than running the migrations again); nobody may be connected to the template then.
 */
export async function createTestDatabase(prefix = 'svc_test', exactName?: string, template?: string): Promise<TestDatabase> {
  const name = exactName ?? uniqueDatabaseName(prefix);
  await withAdmin((c) => c.query(`CREATE DATABASE "${name}"${template === undefined ? '' : ` TEMPLATE "${template}"`}`));
  return {
    name,
    connectionString: testDatabaseUrl(name),
    drop: () => dropDatabase(name),
  };
}

/** Drops a database, its connections closed first; nothing when it is not there. */
export async function dropDatabase(name: string): Promise<void> {
  await withAdmin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}

/** Which of these databases exist on the test server, read in one statement (one snapshot). */
export async function existingDatabases(names: string[]): Promise<Set<string>> {
  const { rows } = await withAdmin((c) => c.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname = ANY($1)', [names]));
  return new Set(rows.map((r) => r.datname));
}

/** Renames a database nobody is connected to. */
export async function renameDatabase(from: string, to: string): Promise<void> {
  await withAdmin((c) => c.query(`ALTER DATABASE "${from}" RENAME TO "${to}"`));
}

/** `<prefix>_<time>_<random>`: unique on a server shared by concurrent runs. */
export function uniqueDatabaseName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
}
