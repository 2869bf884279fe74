import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { openSqliteStorage } from '../../../server/src/index.js';
import { RefusedTransitionError, refusedTransitionCount } from '../../../server/src/storage/common/statusTransitions.js';
import { promoteDue } from '../../../server/src/storage/postgres/tasks/promoteDue.js';
import type { QueueAdmission } from '../../../server/src/storage/postgres/coordination/queueAdmission.js';
import { taskStatusUpdate } from '../../../server/src/storage/postgres/tasks/taskStatusUpdate.js';
import { openPostgresStorage } from '../../../server/src/storage/postgres/openPostgresStorage.js';
import type { PostgresStorage } from '../../../server/src/storage/postgres/PostgresStorage.js';
import { prepareInsertStatusAudit } from '../../../server/src/storage/sqlite/tasks/insertStatusAudit.js';
import { setTasksStatus } from '../../../server/src/storage/sqlite/management/setTasksStatus.js';
import { preparePromoteDue } from '../../../server/src/storage/sqlite/tasks/promoteDue.js';
import { taskWriter } from '../../../server/src/storage/sqlite/readModels/taskWriter.js';
import { createTestDatabase, type TestDatabase } from '../../fixtures/server/postgresDatabase.js';

// The task writers refuse a status write the transition table (contracts/taskTransitions.ts)
// does not list: the row keeps its status, the refusal is a warning in the log and a count, and
// in the suite (SVC_MONITOR_STRICT_TRANSITIONS=1) it throws, so any path driven into one fails.

const ROW = `INSERT INTO tasks (id, type, handler, request, queue, status, audit_level, created_at, scheduled_at)`;
/** Production behaviour (log and go on) for one test; the suite's strict switch is restored after it. */
const lenient = () => vi.stubEnv('SVC_MONITOR_STRICT_TRANSITIONS', '0');
afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

it('the suite runs with refused transitions throwing', () => {
  expect(process.env['SVC_MONITOR_STRICT_TRANSITIONS']).toBe('1');
});

describe('SQLite task writer', () => {
  const storage = openSqliteStorage({ file: ':memory:' });
  const db = storage.db;
  const write = taskWriter(db);
  const promote = preparePromoteDue(db, prepareInsertStatusAudit(db), true);
  const statusOf = (id: string) => (db.prepare('SELECT status FROM tasks WHERE id = ?').get(id) as { status: string }).status;
  const add = (id: string, status: string) => db.prepare(`${ROW} VALUES (?, 'T.Job', 'T.Handler', '{}', 'default', ?, 'Full', 1, 1)`).run(id, status);
  afterAll(() => storage.close());

  it('a promotion to a status Pending may not move to is refused: the row stays Pending, reported once', () => {
    add('sq-promote', 'Pending');
    expect(() => write((deltas) => promote(10, 10, () => 'InProgress' as 'Queued', deltas))).toThrow(RefusedTransitionError);
    expect(statusOf('sq-promote')).toBe('Pending');

    lenient();
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const before = refusedTransitionCount();
    write((deltas) => promote(10, 10, () => 'InProgress' as 'Queued', deltas));
    expect(statusOf('sq-promote')).toBe('Pending');
    expect(refusedTransitionCount()).toBe(before + 1);
    expect(String(warn.mock.calls[0]?.[0])).toMatch(/promoteDueTasks attempted the status change Pending → InProgress.*sq-promote/);
  });

  it('a bulk write that names a prior status the table refuses leaves those rows alone', () => {
    add('sq-done', 'Completed');
    expect(() => write(() => setTasksStatus(db, ['sq-done'], ['Completed'], 'Queued', 5))).toThrow(RefusedTransitionError);
    lenient();
    vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const before = refusedTransitionCount();
    expect(write(() => setTasksStatus(db, ['sq-done'], ['Completed'], 'Queued', 5))).toBe(0);
    expect(statusOf('sq-done')).toBe('Completed');
    expect(refusedTransitionCount()).toBeGreaterThan(before);
  });

  it('a move recorded past every guard is caught by the writer and, in the suite, rolls its transaction back', () => {
    add('sq-net', 'Completed');
    expect(() =>
      write((deltas) => {
        db.prepare(`UPDATE tasks SET status = 'InProgress' WHERE id = 'sq-net'`).run();
        deltas.moved({ queue: 'default', type: 'T.Job', is_recurring: 0, is_occurrence: 0, created_at: 1 }, 'Completed', 'InProgress');
      }),
    ).toThrow(RefusedTransitionError);
    expect(statusOf('sq-net')).toBe('Completed');
  });
});

describe('PostgreSQL status writer', () => {
  let database: TestDatabase;
  let storage: PostgresStorage;
  const statusOf = async (id: string) => (await storage.query<{ status: string }>('SELECT status FROM tasks WHERE id = $1', [id])).rows[0]!.status;
  const add = (id: string, status: string) => storage.query(`${ROW} VALUES ($1, 'T.Job', 'T.Handler', '{}', 'default', $2, 'Full', 1, 1)`, [id, status]);
  const refusingAdmission = { admit: async () => 'InProgress', take: async () => undefined } as unknown as QueueAdmission;

  beforeAll(async () => {
    database = await createTestDatabase('svc_refused');
    storage = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 2, rollupIntervalMs: 0 });
  });
  afterAll(async () => {
    await storage?.close();
    await database?.drop();
  });

  it('a promotion to a status Pending may not move to is refused: the row stays Pending, reported once', async () => {
    await add('pg-promote', 'Pending');
    await expect(storage.transaction((c) => promoteDue(c, 10, 10, refusingAdmission))).rejects.toThrow(RefusedTransitionError);
    expect(await statusOf('pg-promote')).toBe('Pending');

    lenient();
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const before = refusedTransitionCount();
    await storage.transaction((c) => promoteDue(c, 10, 10, refusingAdmission));
    expect(await statusOf('pg-promote')).toBe('Pending');
    expect(refusedTransitionCount()).toBe(before + 1);
    expect(String(warn.mock.calls[0]?.[0])).toMatch(/promoteDue attempted the status change Pending → InProgress.*pg-promote/);
  });

  it("the writer's WHERE names only allowed prior statuses: a Completed row is not requeued, a Failed one is", async () => {
    await add('pg-done', 'Completed');
    await add('pg-failed', 'Failed');
    expect(() => taskStatusUpdate({ writer: 'test', to: 'Queued', from: ['Completed', 'Failed'], where: 'id = ANY($1::text[])' })).toThrow(RefusedTransitionError);
    lenient();
    vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const before = refusedTransitionCount();
    const sql = taskStatusUpdate({ writer: 'test', to: 'Queued', from: ['Completed', 'Failed'], where: 'id = ANY($1::text[])', returning: 't.id' });
    const { rows } = await storage.query<{ id: string }>(sql, [['pg-done', 'pg-failed']]);
    expect(rows.map((r) => r.id)).toEqual(['pg-failed']);
    expect(await statusOf('pg-done')).toBe('Completed');
    expect(await statusOf('pg-failed')).toBe('Queued');
    expect(refusedTransitionCount()).toBe(before + 1);
  });

  it('a status written by an expression is checked in SQL too: a row whose expression gives another status is not written', async () => {
    await add('pg-expr', 'Pending');
    const sql = taskStatusUpdate({ writer: 'test', to: { expr: '$2::text', statuses: ['Queued'] }, from: ['Pending'], where: 't.id = $1', returning: 't.id' });
    expect((await storage.query(sql, ['pg-expr', 'InProgress'])).rows).toEqual([]);
    expect(await statusOf('pg-expr')).toBe('Pending');
    expect((await storage.query(sql, ['pg-expr', 'Queued'])).rows).toEqual([{ id: 'pg-expr' }]);
  });
});

/** Files under `dir` with an UPDATE of tasks that sets `status`, as "file: statement start". */
function statusUpdates(dir: string): { file: string; text: string; statement: string }[] {
  const found: { file: string; text: string; statement: string }[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts') && !p.includes('/migrations/')) {
        const text = readFileSync(p, 'utf8');
        for (const m of text.matchAll(/UPDATE tasks\b[^;`]*?\bSET\b([^`;]*?)\bWHERE\b/gs)) {
          if (/(^|[\s,.])status\s*=/.test(m[1]!)) found.push({ file: p.slice(dir.length + 1), text, statement: m[0].slice(0, 60) });
        }
      }
    }
  };
  walk(dir);
  return found;
}
const storageDir = (backend: string) => join(import.meta.dirname, '../../../server/src/storage', backend);

describe('every status write goes through the writer', () => {
  it('PostgreSQL: no statement outside taskStatusUpdate.ts sets tasks.status (the fast commit checks its run ends before its statement)', () => {
    const offenders = statusUpdates(storageDir('postgres')).filter((u) => !['tasks/taskStatusUpdate.ts', 'tasks/fastCommit.ts'].includes(u.file));
    expect(offenders.map((u) => `${u.file}: ${u.statement}`)).toEqual([]);
  });

  it('SQLite: every statement that sets tasks.status is guarded by the transition table (its WHERE generated from it, or a check before it)', () => {
    // updateScheduleDefinition's one caller passes the status it writes to changeTaskRow, which checks it.
    const offenders = statusUpdates(storageDir('sqlite'))
      .filter((u) => u.file !== 'schedules/updateScheduleDefinition.ts')
      .filter((u) => !/priorStatusCondition\(|checkTransition\(/.test(u.text));
    expect(offenders.map((u) => `${u.file}: ${u.statement}`)).toEqual([]);
  });
});
