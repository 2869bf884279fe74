import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStorage, type Engine, type EngineOptions, type SqliteStorage, type SvcEvent } from '../../../server/src/index.js';
import { engineOn } from './fixtures/storeUnderTest.js';

export interface Harness {
  dir: string;
  file: string;
  storage: SqliteStorage;
  engine: Engine;
  events: SvcEvent[];
  /** status_audit new_status values of a task, oldest first. */
  audits(id: string): string[];
  auditRows(id: string): { new_status: string; exception: string | null; updated_at: number }[];
  row(id: string): Record<string, unknown>;
  status(id: string): string;
  close(): Promise<void>;
}

const open: Harness[] = [];

export function harness(options: Partial<EngineOptions> = {}): Harness {
  const dir = mkdtempSync(join(tmpdir(), 'svc-engine-'));
  const file = join(dir, 'tasks.db');
  const storage = openSqliteStorage({ file });
  const engine = engineOn(storage, { pollIntervalMs: 20, ...options });
  const events: SvcEvent[] = [];
  engine.on('event', (e) => events.push(e));
  const h: Harness = {
    dir,
    file,
    storage,
    engine,
    events,
    audits: (id) =>
      (storage.db.prepare('SELECT new_status FROM status_audit WHERE task_id = ? ORDER BY id').pluck().all(id) as string[]),
    auditRows: (id) =>
      storage.db.prepare('SELECT new_status, exception, updated_at FROM status_audit WHERE task_id = ? ORDER BY id').all(id) as {
        new_status: string;
        exception: string | null;
        updated_at: number;
      }[],
    row: (id) => storage.db.prepare('SELECT * FROM tasks WHERE id = ?').get(id) as Record<string, unknown>,
    status: (id) => storage.db.prepare('SELECT status FROM tasks WHERE id = ?').pluck().get(id) as string,
    close: async () => {
      await engine.stop({ graceMs: 0 });
      storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  open.push(h);
  return h;
}

export async function closeAll(): Promise<void> {
  while (open.length > 0) await open.pop()!.close();
}

export async function waitFor(cond: () => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function deferred<T = void>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
