import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TASK_COLUMNS } from '../../../bench/apiData.js';
import { copyChunks, seedPostgres } from '../../../bench/apiSeedPostgres.js';
import { openPostgresStorage } from '../../../server/src/storage/postgres/openPostgresStorage.js';
import type { PostgresStorage } from '../../../server/src/storage/postgres/PostgresStorage.js';
import { createTestDatabase, type TestDatabase } from '../../fixtures/server/postgresDatabase.js';
import { snapshotReadModels } from '../../fixtures/server/postgresReadModelSnapshot.js';

const ROWS = 3_000;
const NOW = Date.UTC(2026, 10, 29, 12);

/** What a store holds besides its rows: tables and their persistence, indexes, constraints, triggers. */
async function schemaOf(storage: PostgresStorage): Promise<Record<string, string[]>> {
  const list = async (sql: string) => (await storage.query<{ x: string }>(sql, [storage.schema])).rows.map((r) => r.x);
  return {
    tables: await list(`SELECT relname || ' ' || relpersistence::text AS x FROM pg_class WHERE relnamespace = $1::regnamespace AND relkind IN ('r', 'p', 'S') ORDER BY 1`),
    indexes: await list(`SELECT indexdef AS x FROM pg_indexes WHERE schemaname = $1 ORDER BY 1`),
    constraints: await list(`SELECT conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid) AS x FROM pg_constraint WHERE connamespace = $1::regnamespace ORDER BY 1`),
    triggers: await list(`SELECT pg_get_triggerdef(t.oid) AS x FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
                           WHERE c.relnamespace = $1::regnamespace AND NOT t.tgisinternal ORDER BY 1`),
  };
}

/** The rows the task triggers derive: the argument-search words and the task keys, by insertion order. */
async function derivedRows(storage: PostgresStorage): Promise<{ search: string[]; keys: string[] }> {
  const list = async (sql: string) => (await storage.query<{ x: string }>(sql)).rows.map((r) => r.x);
  return {
    search: await list(`SELECT seq || ' ' || created_at || ' ' || words::text AS x FROM "${storage.schema}".task_search ORDER BY seq`),
    keys: await list(`SELECT seq || ' ' || created_at || ' ' || task_key AS x FROM "${storage.schema}".task_keys ORDER BY seq`),
  };
}

/**
 * The bench's bulk seed (indexes and triggers off, tables unlogged during the load) leaves the
 * store as the product's own writes would: the same schema (every index, constraint and trigger
 * back, every table logged) and the same argument-search words and task keys as the same task
 * rows copied in with the triggers on, and read models equal to the store's rebuild.
 */
describe('bench:api PostgreSQL seed', () => {
  let seededDb: TestDatabase;
  let plainDb: TestDatabase;
  let seeded: PostgresStorage;
  let plain: PostgresStorage;

  beforeAll(async () => {
    seededDb = await createTestDatabase('svc_seedcheck');
    plainDb = await createTestDatabase('svc_seedcheck_plain');
    seeded = await openPostgresStorage({ connectionString: seededDb.connectionString, poolSize: 3, rollupIntervalMs: 0 });
    plain = await openPostgresStorage({ connectionString: plainDb.connectionString, poolSize: 3, rollupIntervalMs: 0 });
    await seedPostgres(seeded, ROWS, NOW, () => {});
    const client: PoolClient = await plain.pool.connect();
    try {
      await client.query(`SET search_path TO "${plain.schema}"`);
      await pipeline(Readable.from(copyChunks(ROWS, NOW, [])), client.query(copyFrom(`COPY tasks (${TASK_COLUMNS}, audit_level) FROM STDIN`)));
    } finally {
      client.release();
    }
  }, 120_000);
  afterAll(async () => {
    await seeded?.close();
    await plain?.close();
    await seededDb?.drop();
    await plainDb?.drop();
  });

  it('leaves the schema of a store the migrations made: every index, constraint and trigger, every table logged', async () => {
    const schema = await schemaOf(seeded);
    expect(schema.tables.filter((t) => !t.endsWith(' p'))).toEqual([]);
    expect(schema).toEqual(await schemaOf(plain));
  });

  it('holds the read models a rebuild computes, and the search words and task keys the triggers write for the same rows', async () => {
    expect(Number((await seeded.query<{ n: string }>(`SELECT COUNT(*) AS n FROM "${seeded.schema}".tasks`)).rows[0]!.n)).toBe(ROWS);
    expect(Number((await seeded.query<{ n: string }>(`SELECT COUNT(*) AS n FROM "${seeded.schema}".status_audit`)).rows[0]!.n)).toBeGreaterThan(ROWS);
    // The read models: what the store's own rebuild computes from the rows (inserting finished
    // rows with the triggers on counts no runs, so the plain copy is no oracle for them).
    const models = await snapshotReadModels(seeded);
    expect(models.stat_tasks!.length).toBeGreaterThan(0);
    expect(models.stat_runs_hour!.length).toBeGreaterThan(0);
    await seeded.rebuildReadModels();
    expect(await snapshotReadModels(seeded)).toEqual(models);
    const derived = await derivedRows(seeded);
    expect(derived.keys.length).toBeGreaterThan(0);
    expect(derived).toEqual(await derivedRows(plain));
  });
});
