import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine, createSqliteEngineStore, openSqliteStorage, type Engine, type SqliteStorage } from '../../../server/src/index.js';
import { createPostgresEngineStore } from '../../../server/src/storage/postgres/createPostgresEngineStore.js';
import { openPostgresStorage } from '../../../server/src/storage/postgres/openPostgresStorage.js';
import type { PostgresStorage } from '../../../server/src/storage/postgres/PostgresStorage.js';
import { waitFor } from '../../fixtures/waitFor.js';
import { getJson, login, serve } from '../../fixtures/server/servedMonitoring.js';
import { createTestDatabase, type TestDatabase } from '../../fixtures/server/postgresDatabase.js';

const MARK = ' [text altered: unstorable characters replaced]';

interface Backend {
  engine: Engine;
  storage: SqliteStorage | PostgresStorage;
  close(): Promise<void>;
}

/**
 * U+0000 and lone UTF-16 surrogates in an error, a log line and an argument: each stored with the
 * characters replaced (U+FFFD) and the text marked, readable through the API, and the instance
 * goes on claiming (a refused change does not hold its commits back).
 */
async function unstorableTextIsStored(open: () => Promise<Backend>): Promise<void> {
  const b = await open();
  const s = await serve({ engine: b.engine, storage: b.storage }, { loginRateLimit: false });
  try {
    const errors: unknown[] = [];
    b.engine.handle('Text.Bad', (_request: unknown, ctx) => {
      ctx.log.info('nul \u0000 here');
      ctx.log.warn('lone \ud800 surrogate', new Error('detail \udfff'));
      throw new Error('boom \u0000 and \udc00');
    });
    b.engine.handle('Text.Good', () => undefined);
    b.engine.on('error', (e) => errors.push(e));
    await b.engine.start();
    const bad = await b.engine.dispatch('Text.Bad', { s: 'a\u0000b', t: 'x\ud800y', ['k\u0000']: 1 });
    const token = await login(s.api);
    const detail = async (id: string) => (await getJson(`${s.api}/tasks/${id}`, token)).body as Record<string, unknown>;
    await waitFor(async () => (await detail(bad)).status === 'Failed', 20_000, 'the bad task failed');
    // The instance keeps claiming: tasks dispatched after it run.
    const good = await Promise.all([1, 2, 3].map((i) => b.engine.dispatch('Text.Good', { i })));
    await waitFor(async () => (await Promise.all(good.map(detail))).every((d) => d.status === 'Completed'), 20_000, 'later tasks completed');

    const d = await detail(bad);
    expect(d.exception).toMatch(/^Error: boom \uFFFD and \uFFFD/);
    expect(String(d.exception).endsWith(MARK)).toBe(true);
    expect(JSON.parse(d.request as string)).toEqual({ s: 'a\uFFFDb', t: 'x\uFFFDy', ['k\uFFFD']: 1 });
    const logs = (await getJson(`${s.api}/tasks/${bad}/execution-logs`, token)).body as { logs: { message: string; exceptionDetails?: string }[] };
    expect(logs.logs.map((l) => l.message)).toEqual([`nul \uFFFD here${MARK}`, `lone \uFFFD surrogate${MARK}`]);
    expect(logs.logs[1]!.exceptionDetails).toMatch(/^Error: detail \uFFFD/);
    expect(logs.logs[1]!.exceptionDetails!.endsWith(MARK)).toBe(true);
    const audits = d.statusAudits as { newStatus: string; exception?: string }[];
    expect(audits.find((a) => a.newStatus === 'Failed')?.exception).toBe(d.exception);
    expect(b.engine.health().status).toBe('ok');
    expect(errors).toEqual([]);
  } finally {
    await b.engine.stop({ graceMs: 0 });
    await s.close();
    await b.close();
  }
}

describe('unstorable text (U+0000, lone surrogates) is made storable and marked', () => {
  let database: TestDatabase | undefined;
  afterAll(async () => {
    await database?.drop();
  });

  it('PostgreSQL: in an error, a log line and an argument: stored, readable in the API, the instance keeps claiming', async () => {
    await unstorableTextIsStored(async () => {
      database = await createTestDatabase('svc_text');
      const storage = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 4 });
      const store = createPostgresEngineStore(storage);
      return {
        engine: createEngine({ store, pollIntervalMs: 50, onError: () => undefined }),
        storage,
        async close() {
          await store.dispose();
          await storage.close();
        },
      };
    });
  }, 60_000);

  it('SQLite: the same', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-text-'));
    await unstorableTextIsStored(async () => {
      const storage = openSqliteStorage({ file: join(dir, 'tasks.db') });
      return {
        engine: createEngine({ storage, pollIntervalMs: 50, onError: () => undefined }),
        storage,
        async close() {
          storage.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    });
  }, 60_000);

  it('a run end the store refuses is written once more with a plain error text; the instance keeps claiming', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-text-'));
    const storage = openSqliteStorage({ file: join(dir, 'tasks.db') });
    const inner = createSqliteEngineStore(storage);
    // A store that refuses any run end carrying this error text (as a server may refuse a value).
    const store = { ...inner, commit: (b: Parameters<typeof inner.commit>[0]) =>
      b.completeRuns.some((r) => r.exception?.includes('POISON')) ? Promise.reject(new Error('value refused')) : inner.commit(b) };
    const reported: string[] = [];
    const engine = createEngine({ store, pollIntervalMs: 50, onError: (_e, where) => reported.push(where) });
    try {
      engine.handle('Text.Poison', () => {
        throw new Error('POISON');
      });
      engine.handle('Text.Good', () => undefined);
      await engine.start();
      const bad = await engine.dispatch('Text.Poison');
      const status = (id: string) => storage.db.prepare('SELECT status FROM tasks WHERE id = ?').pluck().get(id);
      await waitFor(() => status(bad) === 'Failed', 10_000, 'the refused end written');
      expect(storage.db.prepare('SELECT exception FROM tasks WHERE id = ?').pluck().get(bad)).toBe("The run's error text could not be stored (value refused)");
      const good = await Promise.all([1, 2, 3].map((i) => engine.dispatch('Text.Good', { i })));
      await waitFor(() => good.every((id) => status(id) === 'Completed'), 10_000, 'later tasks completed');
      expect(reported).toContain(`record finished run of task ${bad} (written again with a plain error text)`);
      expect(engine.health().status).toBe('ok');
    } finally {
      await engine.stop({ graceMs: 0 });
      storage.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
