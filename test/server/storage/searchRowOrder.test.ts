import BetterSqlite3 from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { migrations, openDatabase } from '../../../server/src/index.js';
import { rebuildSearchRows } from '../../../server/src/storage/sqlite/readModels/rebuildSearchRows.js';
import { insertTask } from '../../fixtures/server/servedMonitoring.js';
import { writeTaskRow } from '../../fixtures/writeTaskRow.js';
import { allPages, rawFileAtVersion } from '../../fixtures/server/searchPages.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});

const T0 = Date.UTC(2026, 10, 1);

function freshFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-order9-'));
  dirs.push(dir);
  return join(dir, 'tasks.db');
}

const ordered = (db: BetterSqlite3.Database) => db.prepare(`SELECT ordered FROM search_row_order`).pluck().get();

/** The argument-search answer computed from the task table itself (creation time, then insertion order). */
const expected = (db: BetterSqlite3.Database, value: string, descending: boolean) => {
  const dir = descending ? 'DESC' : 'ASC';
  return db.prepare(`SELECT id FROM tasks WHERE request LIKE ? ORDER BY created_at ${dir}, rowid ${dir}`).pluck().all(`%"${value}"%`) as string[];
};

/** Every page of the store's answer to an argument search sorted by creation time, and the total it reports. */
const pages = (db: BetterSqlite3.Database, value: string, descending: boolean) =>
  allPages(db, { sortBy: 'CreatedAtUtc', sortDescending: descending, pageSize: 4, requestSearch: [value] }, 6);

describe('search-row order (argument search paged inside the full-text index)', () => {
  it('migration 9 records the order of an existing file; pages then match the task table in both directions', async () => {
    const file = freshFile();
    const raw = rawFileAtVersion(file, 8);
    const insert = raw.prepare(`INSERT INTO tasks (id, type, handler, request, queue, status, audit_level, created_at, is_recurring)
      VALUES (?, 'Shop.Export', 'Shop.ExportHandler', ?, 'default', 'Queued', 'Full', ?, 0)`);
    // Equal creation times in runs of three: insertion order breaks the ties.
    for (let i = 0; i < 40; i++) insert.run(`t-${String(i).padStart(3, '0')}`, `{"customer":"ACME-${i % 2}"}`, T0 + Math.floor(i / 3) * 1000);
    rebuildSearchRows(raw);
    raw.close();

    const db = openDatabase({ file });
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.at(-1)!.version);
    expect(ordered(db)).toBe(1);
    for (const descending of [true, false]) {
      const r = await pages(db, 'ACME-1', descending);
      expect(r.total).toBe(20);
      expect(r.ids).toEqual(expected(db, 'ACME-1', descending));
    }
    db.close();
  });

  it('a task created earlier than the last one (clock went back) clears the order; answers stay right', async () => {
    const db = openDatabase({ file: freshFile() });
    for (let i = 0; i < 10; i++) insertTask(db, { request: `{"customer":"ACME-7","i":${i}}`, created_at: T0 + i * 1000 });
    expect(ordered(db)).toBe(1);
    expect((await pages(db, 'ACME-7', true)).ids).toEqual(expected(db, 'ACME-7', true));

    insertTask(db, { request: '{"customer":"ACME-7","late":true}', created_at: T0 + 500 });
    expect(ordered(db)).toBe(0);
    for (const descending of [true, false]) {
      const r = await pages(db, 'ACME-7', descending);
      expect(r.total).toBe(11);
      expect(r.ids).toEqual(expected(db, 'ACME-7', descending));
    }
    // A rebuild of the search rows computes it again (still out of order here).
    rebuildSearchRows(db);
    expect(ordered(db)).toBe(0);
    db.close();
  });

  it('a creation time rewritten between its neighbours keeps the order; out of place clears it', async () => {
    const db = openDatabase({ file: freshFile() });
    const ids = Array.from({ length: 5 }, (_, i) => insertTask(db, { request: '{"customer":"ACME-9"}', created_at: T0 + i * 1000 }));
    const rewrite = (id: string, createdAt: number) =>
      writeTaskRow(db, id, () => db.prepare(`UPDATE tasks SET created_at = ? WHERE id = ?`).run(createdAt, id));
    rewrite(ids[2]!, T0 + 2500);
    expect(ordered(db)).toBe(1);
    expect((await pages(db, 'ACME-9', true)).ids).toEqual(expected(db, 'ACME-9', true));
    rewrite(ids[2]!, T0 + 9000);
    expect(ordered(db)).toBe(0);
    expect((await pages(db, 'ACME-9', true)).ids).toEqual(expected(db, 'ACME-9', true));
    db.close();
  });
});
