import BetterSqlite3 from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TaskSortField, TaskStatus } from '../../../server/src/contracts/index.js';
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
const STATUSES = ['Queued', 'InProgress', 'Completed', 'Failed', 'Cancelled'] as const;

function freshFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-status10-'));
  dirs.push(dir);
  return join(dir, 'tasks.db');
}

/** Search rows whose status differs from their task's. */
const mismatched = (db: BetterSqlite3.Database) =>
  db.prepare(`SELECT COUNT(*) FROM task_search_rows s JOIN tasks t ON t.id = s.task_id WHERE s.status <> t.status`).pluck().get();

/** The answer computed from the task table itself, for a customer value and a status set. */
function expected(db: BetterSqlite3.Database, value: string, statuses: readonly string[], sortBy: TaskSortField, descending: boolean): string[] {
  const dir = descending ? 'DESC' : 'ASC';
  const order = sortBy === 'Status' ? `status ${dir}, created_at ${dir}, rowid ${dir}` : `created_at ${dir}, rowid ${dir}`;
  return db.prepare(`SELECT id FROM tasks WHERE request LIKE ? AND status IN (${statuses.map(() => '?').join(', ')}) ORDER BY ${order}`)
    .pluck().all(`%"${value}"%`, ...statuses) as string[];
}

/** Every page of the store's answer to an argument search with a status filter, and the total it reports. */
const pages = (db: BetterSqlite3.Database, value: string, statuses: TaskStatus[], sortBy: TaskSortField, descending: boolean) =>
  allPages(db, { sortBy, sortDescending: descending, pageSize: 3, requestSearch: [value], statuses }, 12);

describe('search rows carry the task status (argument search with a status filter)', () => {
  it('migration 10 copies the status of an existing file; a status filter then answers from the search rows exactly', async () => {
    const file = freshFile();
    const raw = rawFileAtVersion(file, 9);
    const insert = raw.prepare(`INSERT INTO tasks (id, type, handler, request, queue, status, audit_level, created_at, is_recurring)
      VALUES (?, 'Shop.Export', 'Shop.ExportHandler', ?, 'default', ?, 'Full', ?, 0)`);
    for (let i = 0; i < 60; i++) {
      insert.run(`t-${String(i).padStart(3, '0')}`, `{"customer":"ACME-${i % 2}"}`, STATUSES[i % STATUSES.length], T0 + Math.floor(i / 4) * 1000);
    }
    rebuildSearchRows(raw);
    raw.close();

    const db = openDatabase({ file });
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.at(-1)!.version);
    expect(db.prepare(`SELECT COUNT(*) FROM task_search_rows WHERE status = 'Failed'`).pluck().get()).toBe(12);
    expect(mismatched(db)).toBe(0);
    for (const statuses of [['Failed'], ['Completed', 'Cancelled'], ['Queued', 'InProgress', 'Failed']] satisfies TaskStatus[][]) {
      for (const sortBy of ['CreatedAtUtc', 'Status'] as const) {
        for (const descending of [true, false]) {
          const r = await pages(db, 'ACME-1', statuses, sortBy, descending);
          const want = expected(db, 'ACME-1', statuses, sortBy, descending);
          expect(want.length).toBeGreaterThan(0);
          expect(r.total, `${statuses} ${sortBy} ${descending}`).toBe(want.length);
          expect(r.ids, `${statuses} ${sortBy} ${descending}`).toEqual(want);
        }
      }
    }
    db.close();
  });

  it('every status change, by any writer, moves the copy in the same transaction; a rolled-back change moves neither', async () => {
    const db = openDatabase({ file: freshFile() });
    const ids = Array.from({ length: 6 }, (_, i) => insertTask(db, { request: '{"customer":"ACME-5"}', created_at: T0 + i * 1000 }));
    const setStatus = (id: string, status: string) =>
      writeTaskRow(db, id, () => db.prepare(`UPDATE tasks SET status = ? WHERE id = ?`).run(status, id));
    setStatus(ids[0]!, 'Failed');
    setStatus(ids[1]!, 'Failed');
    setStatus(ids[1]!, 'Queued');
    setStatus(ids[2]!, 'Completed');
    expect(mismatched(db)).toBe(0);
    expect((await pages(db, 'ACME-5', ['Failed'], 'CreatedAtUtc', true)).ids).toEqual([ids[0]]);
    expect((await pages(db, 'ACME-5', ['Queued'], 'CreatedAtUtc', false)).ids).toEqual([ids[1], ids[3], ids[4], ids[5]]);

    // A raw UPDATE outside the task writer is followed too (the copy is kept by the database).
    db.prepare(`UPDATE tasks SET status = 'Cancelled' WHERE id = ?`).run(ids[3]);
    expect(db.prepare(`SELECT status FROM task_search_rows WHERE task_id = ?`).pluck().get(ids[3])).toBe('Cancelled');

    expect(() => db.transaction(() => {
      db.prepare(`UPDATE tasks SET status = 'Failed' WHERE id = ?`).run(ids[4]);
      throw new Error('abort');
    })()).toThrow('abort');
    expect(db.prepare(`SELECT status FROM task_search_rows WHERE task_id = ?`).pluck().get(ids[4])).toBe('Queued');

    // A task created and moved in one transaction gets its status as it stands at the commit.
    const late = db.transaction(() => {
      const id = insertTask(db, { request: '{"customer":"ACME-5"}', created_at: T0 + 9000 });
      db.prepare(`UPDATE tasks SET status = 'InProgress' WHERE id = ?`).run(id);
      return id;
    })();
    expect(db.prepare(`SELECT status FROM task_search_rows WHERE task_id = ?`).pluck().get(late)).toBe('InProgress');
    expect(mismatched(db)).toBe(0);
    db.close();
  });
});
