import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
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
