import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { bundledScript } from '../../fixtures/bundledScript.js';
import { startCli } from '../../fixtures/server/cliProcess.js';

const DAY = 86_400_000;
const createdAt = (file: string): number[] => {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT created_at FROM tasks ORDER BY created_at').pluck().all() as number[];
  } finally {
    db.close();
  }
};

/** A separate engine process dispatches tasks, runs them to the end and exits. */
function runEngineProcess(file: string): void {
  const script = bundledScript(fileURLToPath(new URL('../../fixtures/server/runEngineToEnd.ts', import.meta.url)));
  const r = spawnSync(process.execPath, [script, file], { encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`engine process failed (${r.status} ${r.signal}): ${r.stderr} ${r.stdout}`);
}

describe('serve over a database written by a separate engine process', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-cli-engine-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('shows what the engine wrote', async () => {
    const db = join(dir, 'engine.db');
    runEngineProcess(db);
    const app = await startCli(['serve', '--db', db, '--port', '0', '--enable-authentication=false']);
    try {
      const api = `${app.baseUrl}/svc-monitoring/api`;
      const counts = await (await fetch(`${api}/tasks/counts`)).json();
      expect(counts).toEqual({ all: 12, standard: 12, recurring: 0, failed: 3, occurrences: 0 });
      const page = (await (await fetch(`${api}/tasks?statuses=Completed&pageSize=50`)).json()) as { totalCount: number; items: { id: string; type: string; startedAtUtc?: string }[] };
      expect(page.totalCount).toBe(9);
      expect(page.items[0]!.type).toBe('Ok');
      expect(page.items.every((i) => typeof i.startedAtUtc === 'string')).toBe(true);
      const detail = await (await fetch(`${api}/tasks/${page.items[0]!.id}`)).json() as { executionLogsTotalCount: number; statusAudits: { newStatus: string }[] };
      expect(detail.executionLogsTotalCount).toBe(1);
      expect(detail.statusAudits[0]!.newStatus).toBe('Completed');
      // "Today" is the UTC day of the server's clock. The overview is read within one UTC day
      // (read again when a midnight fell between), so the expected count is exact even when the
      // engine process ran before midnight and the read happens after it.
      let overview: { totalTasksToday: number; failedCount: number };
      let dayStart: number;
      for (;;) {
        const t1 = Date.now();
        overview = await (await fetch(`${api}/dashboard/overview?range=All`)).json() as { totalTasksToday: number; failedCount: number };
        const t2 = Date.now();
        if (Math.floor(t1 / DAY) === Math.floor(t2 / DAY)) {
          dayStart = Math.floor(t1 / DAY) * DAY;
          break;
        }
      }
      const createdToday = createdAt(db).filter((t) => t >= dayStart).length;
      expect(overview).toMatchObject({ totalTasksToday: createdToday, failedCount: 3 });
      if (Math.floor(createdAt(db)[0]! / DAY) === dayStart / DAY) expect(createdToday).toBe(12);
      app.child.kill('SIGINT');
      expect(await app.exited).toBe(0);
    } finally {
      app.child.kill('SIGKILL');
    }
    // Two processes started (the engine's, the CLI's) and a bundle built on first use: a limit for a
    // loaded machine, where each start takes seconds, not a speed check.
  }, 90_000);
});
