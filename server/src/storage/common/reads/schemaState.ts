import type { SchemaState } from '../../MonitoringStore.js';
import { queryOne, type ReadDb } from './ReadDb.js';

/** The schema version the store has (0 when none is recorded) and the newest this code knows. */
export function createSchemaState(db: ReadDb): () => Promise<SchemaState> {
  return async () => {
    const row = await queryOne<{ v: number | string | null }>(db, db.dialect.schemaVersionSql);
    return { applied: Number(row.v ?? 0), latest: db.dialect.latestSchemaVersion };
  };
}
