import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createEngine, migrations, openSqliteStorage } from '../../../server/src/index.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});
const tempFile = () => {
  const d = mkdtempSync(join(tmpdir(), 'svc-storage-'));
  dirs.push(d);
  return join(d, 'tasks.db');
};

describe('openSqliteStorage', () => {
  it('creates a migrated WAL database with synchronous=NORMAL and the engine indexes', () => {
    const file = tempFile();
    const s = openSqliteStorage({ file });
    expect(s.file).toBe(file);
    expect(s.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(s.db.pragma('synchronous', { simple: true })).toBe(1);
    expect(s.db.pragma('user_version', { simple: true })).toBe(migrations.at(-1)!.version);
    const indexes = s.db.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'tasks'`).pluck().all();
    expect(indexes).toEqual(expect.arrayContaining(['ix_tasks_status_created', 'ix_tasks_queue_status_created', 'ix_tasks_key', 'ix_tasks_parent_created']));
    s.close();
    s.close();
    expect(s.closed).toBe(true);
  });

  it('a store that writes a lot has its WAL checkpointed by a worker thread, not by the writer; closing leaves no WAL behind', async () => {
    const file = tempFile();
    const s = openSqliteStorage({ file });
    s.db.exec('CREATE TABLE filler (x BLOB NOT NULL)');
    const before = statSync(file).size;
    // 2 MB into the WAL: past the thread's threshold, below the 1000 pages at which the writer would checkpoint itself.
    const insert = s.db.prepare('INSERT INTO filler (x) VALUES (zeroblob(4000))');
    s.db.transaction(() => {
      for (let i = 0; i < 500; i++) insert.run();
    })();
    expect(statSync(file).size).toBe(before); // the rows are in the WAL only
    // The thread starts, the writer stops checkpointing, and the pages reach the database file while the writer idles.
    await vi.waitFor(() => {
      expect(s.db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
      expect(statSync(file).size).toBeGreaterThan(before + 2_000_000);
    }, { timeout: 15_000, interval: 50 });
    s.close();
    // The writer's connection closed last: SQLite removed the WAL file as it does for a lone connection.
    expect(existsSync(`${file}-wal`)).toBe(false);
    const again = openSqliteStorage({ file, readonly: true });
    expect(again.db.prepare('SELECT COUNT(*) FROM filler').pluck().get()).toBe(500);
    again.close();
  });

  it('opens an existing store read-only; refuses writes and rebuilds there', () => {
    const file = tempFile();
    openSqliteStorage({ file }).close();
    const ro = openSqliteStorage({ file, readonly: true });
    expect(ro.readonly).toBe(true);
    expect(() => ro.db.prepare(`DELETE FROM tasks`).run()).toThrow(/readonly/);
    expect(() => ro.rebuildReadModels()).toThrow(/read-only/);
    // an engine needs a writable store
    expect(() => createEngine({ storage: ro })).toThrow(/read-only/);
    ro.close();
  });

  it('bad options name the option; a missing file in read-only mode is an error', () => {
    expect(() => openSqliteStorage({ file: '' })).toThrow(/"file"/);
    expect(() => openSqliteStorage({ file: tempFile(), readonly: 'yes' as never })).toThrow(/"readonly"/);
    expect(() => openSqliteStorage({ file: tempFile(), colour: 1 } as never)).toThrow(/unknown option "colour"/);
    expect(() => openSqliteStorage({ file: join(tmpdir(), 'svc-missing-dir-x', 'none.db'), readonly: true })).toThrow(/not found/);
  });
});
