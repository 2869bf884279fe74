import type { Database } from 'better-sqlite3';

/** Which optional monitoring structures (migration 4) the opened database has. */
export interface SchemaFeatures {
  typeHandlerSet: boolean;
}

export function detectSchemaFeatures(db: Database): SchemaFeatures {
  const row = db
    .prepare(`SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'monitor_type_handlers'`)
    .get() as { n: number };
  return { typeHandlerSet: row.n > 0 };
}
