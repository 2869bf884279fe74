import type { Database, Statement } from 'better-sqlite3';

const cache = new WeakMap<Database, Map<string, Statement>>();

/** One prepared statement per (connection, SQL text), prepared on first use. */
export function preparedStatement(db: Database, sql: string): Statement {
  let byText = cache.get(db);
  if (!byText) {
    byText = new Map();
    cache.set(db, byText);
  }
  let stmt = byText.get(sql);
  if (!stmt) {
    stmt = db.prepare(sql);
    byText.set(sql, stmt);
  }
  return stmt;
}
