import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine, createSqliteEngineStore, migrations, openSqliteStorage, type SvcEvent } from '../../../server/src/index.js';
import { rawFileAtVersion } from '../../fixtures/server/searchPages.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});

function freshFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-due11-'));
  dirs.push(dir);
  return join(dir, 'tasks.db');
}

const indexNames = (db: { prepare(sql: string): { pluck(): { all(): unknown[] } } }) =>
  db.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'tasks'`).pluck().all() as string[];

describe('the due-work index holds Pending rows only (migration 11)', () => {
  it('a version-10 file migrated: the index is the partial one, due rows run, a later one waits and sets the next wake-up', async () => {
    const file = freshFile();
    const now = Date.now();
    const later = now + 3_600_000;
    const raw = rawFileAtVersion(file, 10);
    expect(indexNames(raw)).toContain('ix_tasks_due');
    const insert = raw.prepare(`INSERT INTO tasks (id, type, handler, request, queue, status, audit_level, created_at, scheduled_at, is_recurring)
      VALUES (?, 'Shop.Export', 'Shop.ExportHandler', '{}', 'default', ?, 'Full', ?, ?, 0)`);
    insert.run('due-1', 'Pending', now - 5000, now - 2000);
    insert.run('due-2', 'Pending', now - 4000, now - 1000);
    insert.run('later', 'Pending', now - 3000, later);
    insert.run('done', 'Completed', now - 9000, now - 9000);
    raw.close();

    const storage = openSqliteStorage({ file });
    try {
      const db = storage.db;
      expect(db.pragma('user_version', { simple: true })).toBe(migrations.at(-1)!.version);
      const names = indexNames(db);
      expect(names).toContain('ix_tasks_pending_due');
      expect(names).not.toContain('ix_tasks_due');
      const definition = db.prepare(`SELECT sql FROM sqlite_master WHERE name = 'ix_tasks_pending_due'`).pluck().get() as string;
      expect(definition).toMatch(/ON tasks \(scheduled_at\) WHERE status = 'Pending'$/);
      // The due reads walk that index, not the status index with a sort of every Pending row.
      const plan = (sql: string) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail).join(' | ');
      expect(plan(`SELECT id FROM tasks INDEXED BY ix_tasks_pending_due WHERE status = 'Pending' AND scheduled_at <= 1 ORDER BY scheduled_at LIMIT 5`))
        .toBe('SEARCH tasks USING INDEX ix_tasks_pending_due (scheduled_at<?)');

      expect(await createSqliteEngineStore(storage).nextWakeAt(now)).toBe(now - 2000);

      const engine = createEngine({ storage, pollIntervalMs: 20 });
      const ran: string[] = [];
      const completed: SvcEvent[] = [];
      engine.handle('Shop.Export', () => undefined);
      const bothDone = new Promise<void>((resolve) => {
        engine.on('event', (e) => {
          if (e.kind === 'Started') ran.push(e.taskId);
          if (e.kind === 'Completed') completed.push(e);
          if (completed.length === 2) resolve();
        });
      });
      await engine.start();
      await bothDone;
      await engine.stop();
      expect(ran).toEqual(['due-1', 'due-2']);
      const statuses = Object.fromEntries(db.prepare('SELECT id, status FROM tasks').raw().all() as [string, string][]);
      expect(statuses).toEqual({ 'due-1': 'Completed', 'due-2': 'Completed', later: 'Pending', done: 'Completed' });
      // Only the waiting row is left in the index, and it is the next wake-up.
      expect(db.prepare(`SELECT id FROM tasks INDEXED BY ix_tasks_pending_due WHERE status = 'Pending' AND scheduled_at IS NOT NULL`).pluck().all())
        .toEqual(['later']);
      expect(await createSqliteEngineStore(storage).nextWakeAt(Date.now())).toBe(later);
    } finally {
      storage.close();
    }
  });
});
