import BetterSqlite3 from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteMonitoringStore, migrate, migrations, openDatabase } from '../../../server/src/index.js';
import { registerFailureFingerprint } from '../../../server/src/storage/sqlite/functions/failureFingerprint.js';
import { rebuildRequestSearchSql } from '../../../server/src/storage/sqlite/migrations/006_search_failures_latency.js';
import type { TaskListQuery } from '../../../server/src/storage/MonitoringStore.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});

const T0 = Date.UTC(2026, 10, 1);

/**
 * A database file as version 7 left it: task rows, and search rows numbered in an order other
 * than the task rows' (their keys are what the argument index's rows point at).
 */
function version7File(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-migrate8-'));
  dirs.push(dir);
  const file = join(dir, 'tasks.db');
  const db = new BetterSqlite3(file);
  registerFailureFingerprint(db);
  db.pragma('journal_mode = WAL');
  expect(migrate(db, migrations.filter((m) => m.version <= 7))).toBe(7);
  const insert = db.prepare(`INSERT INTO tasks (id, type, handler, request, queue, status, task_key, audit_level, created_at, is_recurring)
    VALUES (?, ?, ?, ?, ?, ?, ?, 'Full', ?, ?)`);
  db.transaction(() => {
    for (let i = 0; i < 60; i++) {
      const type = i % 2 === 0 ? 'Shop.Orders.Export' : 'Shop.Mail.Send';
      insert.run(randomUUID(), type, `${type}Handler`, `{"customer":"ACME-${i % 4}"}`, i % 3 === 0 ? 'mail' : 'default',
        i % 5 === 0 ? 'Failed' : 'Completed', i % 2 === 0 ? `order-${i}` : null, T0 + i * 1000, i % 10 === 0 ? 1 : 0);
    }
    db.exec(rebuildRequestSearchSql);
    // Renumber the search rows (and their argument rows) newest first: the migration must keep the link.
    db.exec(`CREATE TEMP TABLE renumber AS SELECT s.id AS old, 1000 - s.id AS new, t.request FROM task_search_rows s JOIN tasks t ON t.id = s.task_id;
      DELETE FROM task_request_fts;
      UPDATE task_search_rows SET id = (SELECT new FROM renumber WHERE old = task_search_rows.id);
      INSERT INTO task_request_fts (rowid, request) SELECT new, request FROM renumber;`);
  })();
  db.close();
  return file;
}

const query = (q: Partial<TaskListQuery>): TaskListQuery => ({ sortBy: 'CreatedAtUtc', sortDescending: true, page: 1, pageSize: 100, ...q });

describe('migration 8 (search rows with sort columns, key index) on a file with data', () => {
  it('a version-7 file answers key and argument searches read-only, and the same after migrating', async () => {
    const file = version7File();
    const expectedKeys = (db: BetterSqlite3.Database, term: string) =>
      db.prepare(`SELECT id FROM tasks WHERE instr(lower(task_key), lower(?)) > 0 ORDER BY created_at DESC`).pluck().all(term);
    const expectedArgs = (db: BetterSqlite3.Database, value: string, queue: string) =>
      db.prepare(`SELECT id FROM tasks WHERE request LIKE ? AND queue = ? ORDER BY created_at DESC`).pluck().all(`%"${value}"%`, queue);
    const answers = async (db: BetterSqlite3.Database) => {
      const store = createSqliteMonitoringStore(db);
      const ids = async (q: Partial<TaskListQuery>) => (await store.listTasks(query(q))).items.map((t) => t.id);
      return {
        keys: await ids({ searchTerm: 'DER-1' }),
        shortKey: await ids({ searchTerm: '-2' }),
        args: await ids({ requestSearch: ['ACME-2'], queueName: 'default' }),
        argsByQueue: await ids({ requestSearch: ['ACME-1'], sortBy: 'QueueName', sortDescending: false }),
      };
    };

    // An older schema opened read-only (cannot migrate): the list falls back to the older paths.
    const ro = openDatabase({ file, readonly: true });
    const before = await answers(ro);
    expect(before.keys).toEqual(expectedKeys(ro, 'der-1'));
    expect(before.keys.length).toBeGreaterThan(3);
    expect(before.shortKey).toEqual(expectedKeys(ro, '-2'));
    expect(before.args).toEqual(expectedArgs(ro, 'ACME-2', 'default'));
    expect(before.args.length).toBeGreaterThan(3);
    ro.close();

    const db = openDatabase({ file });
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.at(-1)!.version);
    // Search rows numbered newest first: their key order is not the creation order.
    expect(db.prepare(`SELECT ordered FROM search_row_order`).pluck().get()).toBe(0);
    // Every search row kept its key and now carries its task's group columns.
    expect(db.prepare(`SELECT COUNT(*) FROM task_search_rows s JOIN tasks t ON t.id = s.task_id
      WHERE s.id >= 940 AND s.created_at = t.created_at AND s.queue = t.queue AND s.type = t.type
        AND s.is_recurring = t.is_recurring AND s.is_occurrence = 0`).pluck().get()).toBe(60);
    // Every key is in the key index, under its task's search-row key.
    expect(db.prepare(`SELECT COUNT(*) FROM task_key_fts k JOIN task_search_rows s ON s.id = k.rowid JOIN tasks t ON t.id = s.task_id
      WHERE task_key_fts MATCH '"order-"'`).pluck().get()).toBe(30);
    const after = await answers(db);
    expect(after).toEqual(before);
    expect(after.argsByQueue).toEqual(
      db.prepare(`SELECT id FROM tasks WHERE request LIKE '%"ACME-1"%' ORDER BY queue, created_at, rowid`).pluck().all(),
    );
    db.close();
  });
});
