// @backends sqlite deferred — child processes killed on one SQLite file (on PostgreSQL: test/server/multiInstance).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openSqliteStorage } from '../../../server/src/index.js';
import { bundledScript } from '../../fixtures/bundledScript.js';
import { engineOn } from '../../fixtures/server/storeUnderTest.js';
import { waitFor } from '../../fixtures/waitFor.js';

const TASKS = 2000;

describe('crash recovery', () => {
  it('a child killed with SIGKILL mid-run: a new engine finishes every task, none lost, none left non-terminal', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-crash-'));
    const file = join(dir, 'tasks.db');
    try {
      const child = spawn(process.execPath, [bundledScript(resolve(__dirname, '../../fixtures/server/crashChild.ts')), file, String(TASKS)], {
        cwd: resolve(__dirname, '../../..'),
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      const exited = new Promise<NodeJS.Signals | null>((r) => child.on('exit', (_code, signal) => r(signal)));
      await waitFor(() => out.includes('dispatched'), 30_000, 'child dispatch');
      const reader = new BetterSqlite3(file, { readonly: true });
      const count = (sql: string) => reader.prepare(sql).pluck().get() as number;
      await waitFor(() => count(`SELECT COUNT(*) FROM tasks WHERE status = 'Completed'`) >= 300, 30_000, 'child progress');
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
      const completedAtKill = count(`SELECT COUNT(*) FROM tasks WHERE status = 'Completed'`);
      reader.close();
      expect(completedAtKill).toBeLessThan(TASKS);

      const storage = openSqliteStorage({ file });
      const leftInProgress = storage.db.prepare(`SELECT COUNT(*) FROM tasks WHERE status = 'InProgress'`).pluck().get() as number;
      const engine = engineOn(storage, { queues: { default: { concurrency: 4 } }, pollIntervalMs: 20 });
      engine.handle('Crash.Work', () => undefined);
      await engine.start();
      const q = (sql: string) => storage.db.prepare(sql).pluck().get() as number;
      await waitFor(() => q(`SELECT COUNT(*) FROM tasks WHERE status = 'Completed'`) === TASKS, 30_000, 'recovery');
      await engine.stop();
      expect(q('SELECT COUNT(*) FROM tasks')).toBe(TASKS);
      expect(q(`SELECT COUNT(*) FROM tasks WHERE status NOT IN ('Completed')`)).toBe(0);
      expect(q(`SELECT COUNT(DISTINCT json_extract(request, '$.n')) FROM tasks`)).toBe(TASKS);
      // Rows left InProgress by the crash were re-queued (an extra Queued audit after their InProgress).
      expect(leftInProgress).toBeGreaterThan(0);
      expect(q(`SELECT COUNT(*) FROM (SELECT task_id FROM status_audit WHERE new_status = 'Queued' GROUP BY task_id HAVING COUNT(*) > 1)`)).toBe(leftInProgress);
      // The read models agree with the table after recovery.
      expect(q(`SELECT n FROM stat_tasks WHERE status = 'Completed'`)).toBe(TASKS);
      expect(q(`SELECT COALESCE(SUM(n), 0) FROM stat_tasks WHERE status <> 'Completed'`)).toBe(0);
      storage.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
