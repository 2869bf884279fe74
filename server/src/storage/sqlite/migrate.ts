import type { Database } from 'better-sqlite3';
import { migrations, type Migration } from './migrations/index.js';

/** Applies every migration newer than `PRAGMA user_version`, each in its own transaction. */
export function migrate(db: Database, list: readonly Migration[] = migrations): number {
  const current = db.pragma('user_version', { simple: true }) as number;
  const latest = list.length === 0 ? 0 : list[list.length - 1]!.version;
  if (current > latest) {
    throw new Error(
      `The database schema version ${current} is newer than this build supports (${latest}); upgrade svc-monitor-server.`,
    );
  }
  for (const m of list) {
    if (m.version <= current) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    }).immediate();
  }
  return db.pragma('user_version', { simple: true }) as number;
}
