import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyRows, type CopyColumn, type CopyValue } from '../../../server/src/storage/postgres/connection/copyRows.js';
import { openPostgresStorage } from '../../../server/src/storage/postgres/openPostgresStorage.js';
import type { PostgresStorage } from '../../../server/src/storage/postgres/PostgresStorage.js';
import { createTestDatabase, type TestDatabase } from '../../fixtures/server/postgresDatabase.js';

// The binary COPY the catch-up writes compact occurrences with: every value arrives as written,
// the table's statement trigger sees every row once, and a unique index refuses a duplicate.
describe('copyRows (PostgreSQL binary COPY)', () => {
  let database: TestDatabase;
  let storage: PostgresStorage;
  const columns: CopyColumn[] = [{ name: 't', type: 'text' }, { name: 'big', type: 'int8' }, { name: 'small', type: 'int4' }];
  beforeAll(async () => {
    database = await createTestDatabase('svc_copy_rows');
    storage = await openPostgresStorage({ connectionString: database.connectionString });
    await storage.query(`CREATE TABLE copied (k SERIAL PRIMARY KEY, t TEXT UNIQUE, big BIGINT, small INTEGER);
      CREATE TABLE seen (rows BIGINT);
      CREATE FUNCTION copied_seen() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO seen SELECT COUNT(*) FROM new_rows; RETURN NULL; END $$;
      CREATE TRIGGER tr_copied AFTER INSERT ON copied REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION copied_seen();`);
  });
  afterAll(async () => {
    await storage?.close();
    await database?.drop();
  });

  it('writes texts, 64- and 32-bit integers and NULLs as they are', async () => {
    const values: CopyValue[][] = [
      ['plain', 0, 0],
      ['tab\tnew\nline\\ back \r', -1, -1],
      ['ünïcødé ✓ 日本', 2 ** 53 - 1, 2 ** 31 - 1],
      ['', -(2 ** 53 - 1), -(2 ** 31)],
      [null, 1_764_390_000_123, null],
      ['nulls', null, 7],
      ['past 2^32', 2 ** 32 + 5, 65_536],
      ['below -2^32', -(2 ** 32) - 5, -65_536],
    ];
    const n = await storage.transaction((c) => copyRows(c, 'copied', columns, values.length, (i) => values[i]!));
    expect(n).toBe(values.length);
    const { rows } = await storage.query<{ t: string | null; big: unknown; small: number | null }>('SELECT t, big, small FROM copied ORDER BY k');
    expect(rows.map((r) => [r.t, r.big === null ? null : Number(r.big), r.small])).toEqual(values);
    await storage.query('TRUNCATE copied; TRUNCATE seen');
  });

  it('writes many chunks in one statement: the trigger sees every row once', async () => {
    const count = 30_000; // > 1 MB of rows: several chunks
    const text = (i: number) => `row-${i}-${'x'.repeat(i % 50)}`;
    const n = await storage.transaction((c) => copyRows(c, 'copied', columns, count, (i) => [text(i), i * 1_000_003, i % 1000]));
    expect(n).toBe(count);
    expect((await storage.query<{ rows: unknown }>('SELECT rows FROM seen')).rows.map((r) => Number(r.rows))).toEqual([count]);
    const { rows } = await storage.query<{ n: unknown; sum: unknown; last: string }>(
      `SELECT COUNT(*) AS n, SUM(big) AS sum, (SELECT t FROM copied ORDER BY k DESC LIMIT 1) AS last FROM copied`);
    expect([Number(rows[0]!.n), Number(rows[0]!.sum), rows[0]!.last]).toEqual([count, (1_000_003 * (count - 1) * count) / 2, text(count - 1)]);
  });

  it('fails on a row a unique index refuses, and writes none of the statement', async () => {
    const before = Number((await storage.query<{ n: string }>('SELECT COUNT(*) AS n FROM copied')).rows[0]!.n);
    await expect(storage.transaction((c) => copyRows(c, 'copied', columns, 2, (i) => [`dup-${i}`, i, i]).then(() =>
      copyRows(c, 'copied', columns, 1, () => ['dup-1', 9, 9])))).rejects.toThrow(/duplicate key/);
    expect(Number((await storage.query<{ n: string }>('SELECT COUNT(*) AS n FROM copied')).rows[0]!.n)).toBe(before);
  });
});
