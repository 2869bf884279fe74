import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { SvcEvent } from '../../../server/src/contracts/index.js';
import { openPostgresStorage } from '../../../server/src/storage/postgres/openPostgresStorage.js';
import { bundledScript } from '../../fixtures/bundledScript.js';
import { snapshotReadModels } from '../../fixtures/server/postgresReadModelSnapshot.js';
import { createTestDatabase, type TestDatabase } from '../../fixtures/server/postgresDatabase.js';

const CHILD = fileURLToPath(new URL('../../fixtures/server/takeoverChild.ts', import.meta.url));
const MAX_ABANDONED = 2;

interface Life {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
}

/** How the lives claim: the steady-state one-statement commit, or (a rate-limited type) the general commit. */
type ClaimPath = 'plain' | 'rate-limited';

function live(connectionString: string, attemptsFile: string, path: ClaimPath, first: boolean): Promise<Life> {
  const args = [bundledScript(CHILD), connectionString, String(MAX_ABANDONED), attemptsFile, path, ...(first ? ['dispatch'] : [])];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  // A life that neither dies in its handler nor fails the task (the row never taken over) is ended here.
  const stuck = setTimeout(() => child.kill('SIGTERM'), 20_000);
  return new Promise((resolve) => child.on('exit', (code, signal) => {
    clearTimeout(stuck);
    resolve({ code, signal, out });
  }));
}

const abandonedText = /^TaskAbandonedError: The task was abandoned 3 times while running \(its process died or lost its lease\)$/;

describe('PostgreSQL: a live instance that takes over a dead instance\'s reserved row counts an abandoned run', () => {
  const databases: TestDatabase[] = [];
  afterAll(async () => {
    for (const d of databases) await d.drop();
  });

  it.each<ClaimPath>(['plain', 'rate-limited'])('%s claims: each life dies in its handler\'s first line (start never written) and the next life\'s claim takes the row over: Failed after maxAbandoned takeovers; ctx.attempt grows', async (path) => {
    const database = await createTestDatabase('svc_takeover');
    databases.push(database);
    const dir = mkdtempSync(join(tmpdir(), 'svc-takeover-'));
    try {
      const attempts = join(dir, 'attempts');
      writeFileSync(attempts, '');
      // One life after another, each a new instance (its own id) started while the dead ones' leases
      // still hold: it takes the row once the dead one's lease lapsed (a live instance's reservation is never taken).
      const lives: Life[] = [];
      for (let i = 0; i < MAX_ABANDONED + 3; i++) {
        const l = await live(database.connectionString, attempts, path, i === 0);
        lives.push(l);
        if (l.signal !== 'SIGKILL') break;
      }
      // The first maxAbandoned + 1 lives ran the task and died; the next one's takeover failed it.
      expect(lives.map((l) => l.signal)).toEqual([...Array<string>(MAX_ABANDONED + 1).fill('SIGKILL'), null]);
      expect(lives.at(-1)!.code).toBe(0);
      expect(readFileSync(attempts, 'utf8').trim().split('\n').map(Number)).toEqual([1, 2, 3]);
      const id = /^dispatched (\S+)$/m.exec(lives[0]!.out)![1]!;
      const event = JSON.parse(/^failed (.+)$/m.exec(lives.at(-1)!.out)![1]!) as SvcEvent;
      expect(event).toMatchObject({ kind: 'Failed', taskId: id, taskType: 'Takeover.Die', abandoned: true });
      expect(event.exception).toMatch(abandonedText);

      const storage = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 2, rollupIntervalMs: 100_000 });
      try {
        const { rows } = await storage.query<Record<string, unknown>>(
          'SELECT status, exception, abandoned_count, run_count, last_outcome, reserved_by, instance_id FROM tasks WHERE id = $1', [id],
        );
        expect(rows[0]).toMatchObject({ status: 'Failed', abandoned_count: 3, run_count: 1, last_outcome: 'Failed', reserved_by: null, instance_id: null });
        expect(rows[0]!.exception).toMatch(abandonedText);
        // No start was ever written: the row went from Queued to Failed.
        const audits = await storage.query<{ new_status: string; exception: string | null }>('SELECT new_status, exception FROM status_audit WHERE task_id = $1 ORDER BY id', [id]);
        expect(audits.rows.map((a) => a.new_status)).toEqual(['Queued', 'Failed']);
        expect(audits.rows.at(-1)!.exception).toMatch(abandonedText);
        const snapshot = await snapshotReadModels(storage);
        expect(snapshot.stat_tasks).toEqual([expect.objectContaining({ type: 'Takeover.Die', status: 'Failed', n: 1 })]);
        await storage.rebuildReadModels();
        expect(await snapshotReadModels(storage)).toEqual(snapshot);
      } finally {
        await storage.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 150_000);
});
