import type { Database, Statement } from 'better-sqlite3';
import type { ReadDb, ReadDialect } from '../common/reads/ReadDb.js';
import { detectSchemaFeatures } from './queries/schemaFeatures.js';

const SQLITE_READS: ReadDialect = {
  name: 'sqlite',
  model: (name) => name,
  sumWhere: (value, condition) => `SUM(CASE WHEN ${condition} THEN ${value} END)`,
  indexedBy: (index) => `INDEXED BY ${index}`,
  // The largest zero-padded "by + value", less its 16-digit prefix.
  latestOf: (value, by) => `substr(MAX(printf('%016d', ${by}) || ${value}), 17)`,
};

/** The monitoring reads over a SQLite handle: each SQL text prepared once, answered synchronously inside. */
export function sqliteReadDb(db: Database): ReadDb {
  const statements = new Map<string, Statement>();
  return {
    dialect: SQLITE_READS,
    features: detectSchemaFeatures(db),
    query<R>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
      let st = statements.get(sql);
      if (st === undefined) {
        st = db.prepare(sql);
        statements.set(sql, st);
      }
      try {
        return Promise.resolve(st.all(...params) as R[]);
      } catch (e) {
        return Promise.reject(e as Error);
      }
    },
  };
}
