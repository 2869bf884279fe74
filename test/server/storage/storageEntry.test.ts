import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, underDir, violations } from '../../fixtures/importGraph.js';

// Outside server/src/storage nothing names a backend or writes SQL: the engine, the monitoring and
// the command line reach a store through storage/openStorage.ts (and the contracts of storage/),
// so that a backend's files can move, split or be added to without touching them.

/** Files outside storage/ allowed to import a backend's folder, with the reason. */
const ALLOWED: Record<string, string> = {
  'server/src/index.ts': "the package's public exports: a host names the backend it opens (openSqliteStorage, openPostgresStorage, their migrations).",
};

const SQL = /\bSELECT\b[^;`'"]{0,200}?\bFROM\b|\bUPDATE\s+[a-z_]+\s+SET\b|\bINSERT\s+INTO\b|\bDELETE\s+FROM\b/;

async function sourceFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await sourceFiles(p)));
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

const outsideStorage = (file: string) => !file.startsWith('server/src/storage/');

describe('storage is reached through its entry', () => {
  it('nothing outside storage/ imports storage/sqlite or storage/postgres (but the package entry, listed)', async () => {
    const rule = (target: string) =>
      underDir(target, 'server/src/storage/sqlite') || underDir(target, 'server/src/storage/postgres') ? 'reach a backend through storage/openStorage.ts' : undefined;
    const found = (await violations('server/src', rule)).filter((v) => {
      const file = v.slice(0, v.indexOf(' imports '));
      return outsideStorage(file) && !(file in ALLOWED);
    });
    expect(found).toEqual([]);
  });

  it('no file outside storage/ holds SQL text (SELECT … FROM, UPDATE … SET, INSERT INTO, DELETE FROM)', async () => {
    const withSql: string[] = [];
    for (const path of await sourceFiles(join(ROOT, 'server/src'))) {
      const file = relative(ROOT, path);
      if (!outsideStorage(file)) continue;
      const m = SQL.exec(await readFile(path, 'utf8'));
      if (m) withSql.push(`${file}: ${m[0].slice(0, 60)}`);
    }
    expect(withSql).toEqual([]);
  });

  it('the SQL pattern finds each of the four statements, and not prose', () => {
    for (const text of ['`SELECT id FROM tasks`', "'UPDATE tasks SET a = 1'", '`INSERT INTO t (a)`', '`DELETE FROM t`']) expect(SQL.test(text)).toBe(true);
    expect(SQL.test('// select the rows from the list')).toBe(false);
  });
});
