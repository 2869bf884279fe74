import type { SqliteStorage } from '../../../server/src/index.js';
import type { PostgresStorage } from '../../../server/src/storage/postgres/PostgresStorage.js';
import type { StoreUnderTest } from '../engine/fixtures/storeUnderTest.js';
import { snapshotReadModels } from './postgresReadModelSnapshot.js';
import { snapshotSqliteReadModels } from './sqliteReadModelSnapshot.js';

/**
 * The read models of the store under test as the writes left them, then as a recomputation from
 * the task rows makes them (the storage's repair): a test expects the two to be equal.
 */
export async function readModelsAndRebuild(sut: StoreUnderTest): Promise<{ live: unknown; rebuilt: unknown }> {
  const storage = await sut.storage();
  if (sut.backend === 'sqlite') {
    const sqlite = storage as SqliteStorage;
    const live = snapshotSqliteReadModels(sqlite.db);
    sqlite.rebuildReadModels();
    return { live, rebuilt: snapshotSqliteReadModels(sqlite.db) };
  }
  const pg = storage as PostgresStorage;
  const live = await snapshotReadModels(pg);
  await pg.rebuildReadModels();
  return { live, rebuilt: await snapshotReadModels(pg) };
}
