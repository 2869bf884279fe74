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

/** The value (not type-only) names an `import { … } from '…'` or `const { … } = await import('…')` brings in, with their module. */
function valueImports(text: string): { names: string[]; from: string }[] {
  const out: { names: string[]; from: string }[] = [];
  const names = (list: string) => list.split(',').map((n) => n.trim()).filter((n) => n !== '' && !n.startsWith('type ')).map((n) => n.split(/\s+as\s+|\s*:\s*/)[0]!);
  for (const m of text.matchAll(/^import\s+(type\s+)?\{([^}]*)\}\s+from\s+'([^']+)'/gm)) if (!m[1]) out.push({ names: names(m[2]!), from: m[3]! });
  for (const m of text.matchAll(/const\s+\{([^}]*)\}\s*=\s*await\s+import\('([^']+)'\)/g)) out.push({ names: names(m[1]!), from: m[2]! });
  return out;
}

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

  it('the command line opens and uses stores through openStorage(options) only', async () => {
    const found: string[] = [];
    for (const path of await sourceFiles(join(ROOT, 'server/src/cli'))) {
      const file = relative(ROOT, path);
      for (const { names, from } of valueImports(await readFile(path, 'utf8'))) {
        if (!from.includes('/storage/')) continue;
        const others = names.filter((n) => !(from.endsWith('/storage/openStorage.js') && n === 'openStorage'));
        if (others.length > 0) found.push(`${file}: ${others.join(', ')} from ${from}`);
      }
    }
    expect(found).toEqual([]);
  });

  it("storage/openStorage.ts hands out no backend's function or value (only types and its own functions)", async () => {
    const text = await readFile(join(ROOT, 'server/src/storage/openStorage.ts'), 'utf8');
    const fromBackend = new Set(valueImports(text).filter((i) => /^\.\/(sqlite|postgres)\//.test(i.from)).flatMap((i) => i.names));
    const reExported = [...text.matchAll(/^export\s+\{([^}]*)\}/gm)].flatMap((m) => m[1]!.split(',').map((n) => n.trim()).filter((n) => n !== '' && !n.startsWith('type ')));
    expect(reExported.filter((n) => fromBackend.has(n))).toEqual([]);
  });

  it('the import reader sees value imports, dynamic ones too, and leaves types out', () => {
    const text = `import { a, type B, c as d } from './x.js';\nimport type { E } from './y.js';\n  const { f } = await import('../z.js');`;
    expect(valueImports(text)).toEqual([{ names: ['a', 'c'], from: './x.js' }, { names: ['f'], from: '../z.js' }]);
  });

  it('the SQL pattern finds each of the four statements, and not prose', () => {
    for (const text of ['`SELECT id FROM tasks`', "'UPDATE tasks SET a = 1'", '`INSERT INTO t (a)`', '`DELETE FROM t`']) expect(SQL.test(text)).toBe(true);
    expect(SQL.test('// select the rows from the list')).toBe(false);
  });
});
