import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { SvcEvent } from '../../../server/src/contracts/index.js';
import { createEngine, openSqliteStorage, type SqliteStorage } from '../../../server/src/index.js';
import { openPostgresStorage } from '../../../server/src/storage/postgres/openPostgresStorage.js';
import type { PostgresStorage } from '../../../server/src/storage/postgres/PostgresStorage.js';
import { bundledScript } from '../../fixtures/bundledScript.js';
import { snapshotReadModels } from '../../fixtures/server/postgresReadModelSnapshot.js';
import { createTestDatabase } from '../../fixtures/server/postgresDatabase.js';
import { snapshotSqliteReadModels } from '../../fixtures/server/sqliteReadModelSnapshot.js';

const CHILD = fileURLToPath(new URL('../../fixtures/server/abandoningChild.ts', import.meta.url));
const MAX_ABANDONED = 2;

interface Life {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
}

/** When the handler kills its process: once its start is written (Started), or in its first line (before). */
type DieAt = 'started' | 'first-line';

function live(backend: 'sqlite' | 'postgres', location: string, attemptsFile: string, first: boolean, dieAt: DieAt): Promise<Life> {
  const args = [bundledScript(CHILD), backend, location, String(MAX_ABANDONED), attemptsFile, ...(first ? ['dispatch'] : [])];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, SVC_DIE_AT: dieAt } });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  // A life that neither dies in its handler nor ends by itself (its row never run again) is ended here.
  const stuck = setTimeout(() => child.kill('SIGTERM'), 30_000);
  return new Promise((resolve) => child.on('exit', (code, signal) => {
    clearTimeout(stuck);
    resolve({ code, signal, out });
  }));
}

/** Restarts the process until a life ends other than by its handler's SIGKILL; returns every life. */
async function liveUntilFailed(backend: 'sqlite' | 'postgres', location: string, attemptsFile: string, dieAt: DieAt = 'started'): Promise<Life[]> {
  const lives: Life[] = [];
  for (let i = 0; i < MAX_ABANDONED + 3; i++) {
    const l = await live(backend, location, attemptsFile, i === 0, dieAt);
    lives.push(l);
    if (l.signal !== 'SIGKILL') break;
  }
  return lives;
}

function expectAbandonedFailure(lives: Life[], attemptsFile: string): { id: string; event: SvcEvent } {
  // Each of the first maxAbandoned + 1 lives ran the task and died in its handler; the next one failed it.
  expect(lives.map((l) => l.signal)).toEqual([...Array<string>(MAX_ABANDONED + 1).fill('SIGKILL'), null]);
  expect(lives.at(-1)!.code).toBe(0);
  expect(readFileSync(attemptsFile, 'utf8').trim().split('\n').map(Number)).toEqual([1, 2, 3]);
  const id = /^dispatched (\S+)$/m.exec(lives[0]!.out)![1]!;
  const line = /^failed (.+)$/m.exec(lives.at(-1)!.out)![1]!;
  const event = JSON.parse(line) as SvcEvent;
  expect(event).toMatchObject({ kind: 'Failed', taskId: id, taskType: 'Abandon.Die' });
  expect(event.exception).toContain('abandoned 3 times while running');
  return { id, event };
}

const abandonedText = /^TaskAbandonedError: The task was abandoned 3 times while running \(its process died or lost its lease\)$/;

/** A temporary folder holding an empty attempts file (each life appends its ctx.attempt), removed afterwards. */
async function inScratchDir(body: (dir: string, attempts: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-abandon-'));
  try {
    const attempts = join(dir, 'attempts');
    writeFileSync(attempts, '');
    await body(dir, attempts);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One task's lives on a fresh SQLite file until it fails as abandoned; `body` then reads the file. */
function afterAbandonedOnSqlite(dieAt: DieAt, body: (storage: SqliteStorage, id: string) => Promise<void> | void): Promise<void> {
  return inScratchDir(async (dir, attempts) => {
    const file = join(dir, 'tasks.db');
    const { id } = expectAbandonedFailure(await liveUntilFailed('sqlite', file, attempts, dieAt), attempts);
    const storage = openSqliteStorage({ file });
    try {
      await body(storage, id);
    } finally {
      storage.close();
    }
  });
}

/** The same on a fresh PostgreSQL database (the lives share one fixed instanceId), dropped afterwards. */
async function afterAbandonedOnPostgres(databasePrefix: string, dieAt: DieAt, body: (storage: PostgresStorage, id: string) => Promise<void>): Promise<void> {
  const database = await createTestDatabase(databasePrefix);
  try {
    await inScratchDir(async (_dir, attempts) => {
      const { id } = expectAbandonedFailure(await liveUntilFailed('postgres', database.connectionString, attempts, dieAt), attempts);
      const storage = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 2, rollupIntervalMs: 100_000 });
      try {
        await body(storage, id);
      } finally {
        await storage.close();
      }
    });
  } finally {
    await database.drop();
  }
}

/** The read models count the one Failed task, and equal a recomputation from the rows. */
function expectSqliteReadModelsAsRebuilt(storage: SqliteStorage): void {
  const live = snapshotSqliteReadModels(storage.db);
  expect(live.stat_tasks).toEqual([expect.objectContaining({ type: 'Abandon.Die', status: 'Failed', n: 1 })]);
  storage.rebuildReadModels();
  expect(snapshotSqliteReadModels(storage.db)).toEqual(live);
}

async function expectPostgresReadModelsAsRebuilt(storage: PostgresStorage): Promise<void> {
  const live = await snapshotReadModels(storage);
  expect(live.stat_tasks).toEqual([expect.objectContaining({ type: 'Abandon.Die', status: 'Failed', n: 1 })]);
  await storage.rebuildReadModels();
  expect(await snapshotReadModels(storage)).toEqual(live);
}

describe('a handler that kills its process: abandoned runs are counted, then the task fails', () => {
  it('SQLite: after maxAbandoned restarts the task is Failed with the abandoned message; ctx.attempt grows', () =>
    afterAbandonedOnSqlite('started', async (storage, id) => {
      const row = storage.db.prepare('SELECT status, exception, abandoned_count, run_count, last_outcome FROM tasks WHERE id = ?').get(id) as Record<string, unknown>;
      expect(row).toMatchObject({ status: 'Failed', abandoned_count: 3, run_count: 1, last_outcome: 'Failed' });
      expect(row.exception).toMatch(abandonedText);
      const audits = storage.db.prepare('SELECT new_status, exception FROM status_audit WHERE task_id = ? ORDER BY id').all(id) as { new_status: string; exception: string | null }[];
      expect(audits.map((a) => a.new_status)).toEqual(['Queued', 'InProgress', 'Queued', 'InProgress', 'Queued', 'InProgress', 'Failed']);
      expect(audits.at(-1)!.exception).toMatch(abandonedText);
      expectSqliteReadModelsAsRebuilt(storage);
      // A person's retry starts the count afresh.
      expect((await createEngine({ storage }).tasks.retry(id, 'tester')).status).toBe('Succeeded');
      expect(storage.db.prepare('SELECT status, abandoned_count FROM tasks WHERE id = ?').get(id)).toEqual({ status: 'Queued', abandoned_count: 0 });
    }), 120_000);

  it('PostgreSQL, a fixed instanceId: each restart recovers its earlier life\'s row at once; Failed after maxAbandoned restarts', () =>
    afterAbandonedOnPostgres('svc_abandon', 'started', async (storage, id) => {
      const { rows } = await storage.query<Record<string, unknown>>('SELECT status, exception, abandoned_count, run_count, last_outcome, instance_id FROM tasks WHERE id = $1', [id]);
      expect(rows[0]).toMatchObject({ status: 'Failed', abandoned_count: 3, run_count: 1, last_outcome: 'Failed', instance_id: null });
      expect(rows[0]!.exception).toMatch(abandonedText);
      const audits = await storage.query<{ new_status: string }>('SELECT new_status FROM status_audit WHERE task_id = $1 ORDER BY id', [id]);
      expect(audits.rows.map((a) => a.new_status)).toEqual(['Queued', 'InProgress', 'Queued', 'InProgress', 'Queued', 'InProgress', 'Failed']);
      await expectPostgresReadModelsAsRebuilt(storage);
    }), 120_000);
});

describe('a handler that kills its process in its first line, before its start is written: counted as abandoned too', () => {
  it('SQLite: the row is Queued under the dead life\'s reservation; each restart counts it; Failed after maxAbandoned restarts, read models equal a rebuild', () =>
    afterAbandonedOnSqlite('first-line', (storage, id) => {
      const row = storage.db.prepare('SELECT status, exception, abandoned_count, run_count, last_outcome, reserved_by FROM tasks WHERE id = ?').get(id) as Record<string, unknown>;
      expect(row).toMatchObject({ status: 'Failed', abandoned_count: 3, run_count: 1, last_outcome: 'Failed', reserved_by: null });
      expect(row.exception).toMatch(abandonedText);
      // No start was ever written: the row went from Queued to Failed.
      const audits = storage.db.prepare('SELECT new_status FROM status_audit WHERE task_id = ? ORDER BY id').all(id) as { new_status: string }[];
      expect(audits.map((a) => a.new_status)).toEqual(['Queued', 'Failed']);
      expectSqliteReadModelsAsRebuilt(storage);
    }), 120_000);

  it('PostgreSQL, a fixed instanceId: each restart counts its earlier life\'s reserved row; Failed after maxAbandoned restarts, read models equal a rebuild', () =>
    afterAbandonedOnPostgres('svc_abandon_first', 'first-line', async (storage, id) => {
      const { rows } = await storage.query<Record<string, unknown>>(
        'SELECT status, exception, abandoned_count, run_count, last_outcome, reserved_by FROM tasks WHERE id = $1', [id],
      );
      expect(rows[0]).toMatchObject({ status: 'Failed', abandoned_count: 3, run_count: 1, last_outcome: 'Failed', reserved_by: null });
      expect(rows[0]!.exception).toMatch(abandonedText);
      const audits = await storage.query<{ new_status: string }>('SELECT new_status FROM status_audit WHERE task_id = $1 ORDER BY id', [id]);
      expect(audits.rows.map((a) => a.new_status)).toEqual(['Queued', 'Failed']);
      await expectPostgresReadModelsAsRebuilt(storage);
    }), 120_000);
});
