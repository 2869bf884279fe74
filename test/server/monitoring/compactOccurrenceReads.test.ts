import type { Database } from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditLevel } from '../../../server/src/contracts/index.js';
import { createScheduleManager } from '../../../server/src/engine/schedules/index.js';
import type { MonitoringStore, TaskListFilter, TaskListQuery } from '../../../server/src/storage/MonitoringStore.js';
import { createMonitoringStore } from '../../../server/src/storage/common/reads/createMonitoringStore.js';
import type { ReadDb } from '../../../server/src/storage/common/reads/ReadDb.js';
import { postgresReadDb } from '../../../server/src/storage/postgres/monitoring/postgresReadDb.js';
import { sqliteReadDb } from '../../../server/src/storage/sqlite/monitoring/sqliteReadDb.js';
import type { PostgresStorage } from '../../../server/src/storage/postgres/PostgresStorage.js';
import type { SqliteStorage } from '../../../server/src/storage/Storage.js';
import { scheduleInternals } from '../../fixtures/scheduleInternals.js';
import { openMonitoredStore, type MonitoredStore } from '../../fixtures/server/monitoredStore.js';
import { getJson, insertTask, login, serve, type Served } from '../../fixtures/server/servedMonitoring.js';
import { spillCompact, type SpillSelection } from '../../fixtures/server/spillCompact.js';

// The same catch-up written twice, into two stores of the backend under test (SQLite files or
// PostgreSQL schemas): once as compact occurrences
// (compactFrom 1), once as task rows (compactFrom ∞), the second store's ids then made the first's.
// Every monitoring read must answer the same on both: a compact occurrence is shown exactly as
// the task row it stands for.

const MIN = 60_000;
const HOUR = 60 * MIN;
// The catch-up at 18:40:30Z: inside the hour in which Asia/Kolkata's day and its hourly buckets begin (18:30Z).
const T0 = Date.parse('2026-03-05T12:40:30Z');
const DOWN = 6 * HOUR;
const CATCH_UP = T0 + DOWN;
const NOW = CATCH_UP + 2 * MIN;
/** 360 + 72 + 24 + 6 occurrences after 6 h down. */
const OCCURRENCES = 360 + 72 + 24 + 6;

const SCHEDULES: { key: string; type: string; queue?: string; request: unknown; every: string; auditLevel: AuditLevel }[] = [
  { key: 'billing-run', type: 'Billing.Invoice', queue: 'billing', request: { customer: 'ACME-42', full: true }, every: '1m', auditLevel: 'Full' },
  { key: 'mail-digest', type: 'Mail.Send', request: { list: 'newsletter' }, every: '5m', auditLevel: 'ErrorsOnly' },
  { key: 'quiet-probe', type: 'Ops.Probe', queue: 'ops', request: { host: 'db-7' }, every: '15m', auditLevel: 'None' },
  { key: 'report-hourly', type: 'Reports.Build', request: { report: 'ACME-42 margins' }, every: '1h', auditLevel: 'Full' },
];

/** Plain task rows around the catch-up (one created in the catch-up's millisecond, before it). */
const guid = (n: number) => `aaaaaaaa-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

interface Built {
  t: MonitoredStore;
  store: MonitoringStore;
  served: Served;
  token: string;
  /** The schedules' ids, by key. */
  scheduleIds(): Promise<string[]>;
  close(): Promise<void>;
}

/** The monitoring reads of the store's storage, on either backend. */
const readDbOf = (storage: SqliteStorage | PostgresStorage): ReadDb => ('db' in storage ? sqliteReadDb(storage.db) : postgresReadDb(storage));

async function storageOf(t: MonitoredStore): Promise<SqliteStorage | PostgresStorage> {
  return (await t.source()).storage as SqliteStorage | PostgresStorage;
}

/** The selected compact occurrences turned into task rows, as a writer does first (either backend). */
const spill = async (t: MonitoredStore, sel: SpillSelection, limit?: number) => spillCompact(await storageOf(t), sel, limit);

async function build(compactFrom: number): Promise<Built> {
  const t = openMonitoredStore();
  const clock = { now: T0 };
  const manager = createScheduleManager(scheduleInternals(t.store, () => clock.now, []), { compactFrom });
  const replay = { policy: 'ReplayAll', overflowCap: 5000, windowMs: 48 * HOUR } as const;
  for (const s of SCHEDULES) {
    await manager.upsert({ key: s.key, type: s.type, queue: s.queue, request: s.request, every: s.every, auditLevel: s.auditLevel, misfire: replay });
  }
  await t.seed((db) => {
    insertTask(db, { id: guid(1), type: 'Billing.Invoice', queue: 'billing', request: '{"customer":"ACME-42"}', status: 'Completed', task_key: 'acme-once', created_at: T0 + HOUR, started_at: T0 + HOUR + 10, last_execution_at: T0 + HOUR + 60, execution_time_ms: 50, run_count: 1, last_outcome: 'Completed' });
    insertTask(db, { id: guid(2), type: 'Mail.Send', status: 'Failed', created_at: T0 + 2 * HOUR, last_execution_at: T0 + 2 * HOUR + 5, execution_time_ms: 0, run_count: 1, last_outcome: 'Failed', exception: 'Error: smtp down' });
    insertTask(db, { id: guid(3), type: 'Ops.Probe', queue: 'ops', status: 'Pending', request: '{"host":"db-7"}', created_at: CATCH_UP, scheduled_at: CATCH_UP + HOUR });
    insertTask(db, { id: guid(4), type: 'Reports.Build', status: 'Queued', created_at: CATCH_UP - 90 * MIN });
    // Created after the catch-up, inserted before it: a task row inserted after a catch-up sorts
    // before its compact occurrences where sort keys tie (the view's rowid is after every task
    // row's), where as task rows they would come first.
    insertTask(db, { id: guid(5), type: 'Billing.Invoice', queue: 'billing', status: 'Pending', request: '{"customer":"ACME-42"}', created_at: CATCH_UP + MIN, scheduled_at: NOW + HOUR });
  });
  clock.now = CATCH_UP;
  expect((await manager.materializer.drain(clock.now)).written).toBe(OCCURRENCES);
  const served = await serve(await t.source(), { now: () => NOW });
  const token = await login(served.api);
  return {
    t,
    store: createMonitoringStore(readDbOf(await storageOf(t))),
    served,
    token,
    scheduleIds: () =>
      t.probe.values<string>(`SELECT id FROM tasks WHERE task_key IN (${SCHEDULES.map(() => '?').join(', ')}) ORDER BY task_key`, ...SCHEDULES.map((s) => s.key)),
    async close() {
      await served.close();
      await t.destroy();
    },
  };
}

/**
 * Gives the task-row store's schedules and occurrences the ids the compact store gave them (the
 * engine's ids are random): schedules by key, occurrences by schedule key and slot, in every table
 * that names a task.
 */
async function alignIds(from: MonitoredStore, to: MonitoredStore): Promise<void> {
  const ids = async (t: MonitoredStore) =>
    new Map(
      (await t.probe.rows<{ k: string; id: string }>(`SELECT s.task_key || '@' || COALESCE(CAST(o.nominal_slot_at AS TEXT), '') AS k, COALESCE(o.id, s.id) AS id
          FROM tasks s LEFT JOIN (SELECT parent_task_id, nominal_slot_at, id FROM tasks WHERE parent_task_id IS NOT NULL
                                  UNION ALL SELECT parent_task_id, nominal_slot_at, id FROM pending_occurrence_tasks) o ON o.parent_task_id = s.id
         WHERE s.task_key IS NOT NULL AND s.parent_task_id IS NULL AND s.occurrence_mode = 'Durable'
         UNION ALL SELECT task_key || '@', id FROM tasks WHERE task_key IS NOT NULL AND occurrence_mode = 'Durable' AND parent_task_id IS NULL`)).map((r) => [r.k, r.id]),
    );
  const wanted = await ids(from);
  const pairs = [...new Map([...(await ids(to))].map(([k, id]) => [id, wanted.get(k)!] as const))];
  expect(pairs.every(([, id]) => id !== undefined)).toBe(true);
  const storage = await storageOf(to);
  if ('db' in storage) {
    const db: Database = storage.db;
    db.transaction(() => {
      db.exec(`CREATE TEMP TABLE id_map (old TEXT PRIMARY KEY, new TEXT NOT NULL)`);
      const put = db.prepare(`INSERT OR IGNORE INTO id_map VALUES (?, ?)`);
      for (const [old, id] of pairs) put.run(old, id);
      const mapped = (column: string) => `${column} = (SELECT new FROM id_map WHERE old = ${column}) WHERE ${column} IN (SELECT old FROM id_map)`;
      db.exec(`UPDATE tasks SET ${mapped('id')}; UPDATE tasks SET ${mapped('parent_task_id')};
        UPDATE status_audit SET ${mapped('task_id')}; UPDATE task_search_rows SET ${mapped('task_id')}; DROP TABLE temp.id_map`);
    })();
    return;
  }
  // PostgreSQL: the search words are keyed by the task's seq, which stays.
  await storage.transaction(async (c) => {
    const map = `unnest($1::text[], $2::text[]) AS m(old, new)`;
    const args = [pairs.map(([old]) => old), pairs.map(([, id]) => id)];
    await c.query(`UPDATE tasks t SET id = m.new FROM ${map} WHERE t.id = m.old`, args);
    await c.query(`UPDATE tasks t SET parent_task_id = m.new FROM ${map} WHERE t.parent_task_id = m.old`, args);
    await c.query(`UPDATE status_audit a SET task_id = m.new FROM ${map} WHERE a.task_id = m.old`, args);
  });
}

/** A status-audit entry's id is its row's (a compact occurrence's synthesized entry has none of its own): left out. */
function withoutAuditIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutAuditIds);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = k === 'statusAudits' || k === 'audits' ? (v as Record<string, unknown>[]).map(({ id: _id, ...rest }) => rest) : withoutAuditIds(v);
  }
  return out;
}

/** The same catch-up built compact and as task rows, the second store's ids made the first's. */
async function buildPair(): Promise<[Built, Built]> {
  const compact = await build(1);
  const rows = await build(Number.POSITIVE_INFINITY);
  await alignIds(compact.t, rows.t);
  return [compact, rows];
}

describe('compact Pending occurrences read exactly as the task rows they stand for', () => {
  let compact: Built;
  let rows: Built;
  beforeAll(async () => {
    [compact, rows] = await buildPair();
  }, 60_000);
  afterAll(async () => {
    await compact?.close();
    await rows?.close();
  });

  const both = async <T>(read: (b: Built) => Promise<T>): Promise<[T, T]> => [await read(compact), await read(rows)];
  const same = async <T>(read: (b: Built) => Promise<T>): Promise<T> => {
    const [a, b] = await both(read);
    expect(withoutAuditIds(a)).toEqual(withoutAuditIds(b));
    return a;
  };
  const http = (path: string) => async (b: Built) => {
    const r = await getJson(`${b.served.api}${path}`, b.token);
    expect(r.status, `${path}: ${r.text}`).toBe(200);
    return r.body as unknown;
  };

  it('the two stores hold the same catch-up, one as compact rows, the other as task rows', async () => {
    const count = async (b: Built, sql: string) => Number(await b.t.probe.value(sql));
    expect(await count(compact, 'SELECT COUNT(*) FROM pending_occurrences')).toBe(OCCURRENCES);
    expect(await count(compact, 'SELECT COUNT(*) FROM tasks WHERE parent_task_id IS NOT NULL')).toBe(0);
    expect(await count(rows, 'SELECT COUNT(*) FROM pending_occurrences')).toBe(0);
    expect(await count(rows, 'SELECT COUNT(*) FROM tasks WHERE parent_task_id IS NOT NULL')).toBe(OCCURRENCES);
    expect(await compact.scheduleIds()).toEqual(await rows.scheduleIds());
  });

  const base: TaskListQuery = { sortBy: 'CreatedAtUtc', sortDescending: true, page: 1, pageSize: 50 };
  const LISTS: [string, Partial<TaskListQuery>][] = [
    ['newest first', {}],
    ['oldest first, page 2', { sortDescending: false, page: 2 }],
    ['a page across the catch-up millisecond', { sortDescending: false, page: 1, pageSize: 20 }],
    ['the last page', { sortDescending: true, page: 10 }],
    ['past the end', { page: 100 }],
    ['Pending only', { statuses: ['Pending'] }],
    ['Pending and Completed, by status', { statuses: ['Pending', 'Completed'], sortBy: 'Status' }],
    ['Failed only (no compact row can match)', { statuses: ['Failed'] }],
    ['a queue', { queueName: 'billing', pageSize: 30, page: 3 }],
    ['a type substring', { taskType: 'mail' }],
    ['recurring', { isRecurring: true }],
    ['not recurring', { isRecurring: false, page: 2 }],
    ['occurrences only', { onlyOccurrences: true, sortBy: 'ScheduledExecutionUtc' }],
    ['no occurrences', { onlyOccurrences: false }],
    ['catch-up only', { onlyCatchUp: true, sortBy: 'QueueName' }],
    ['not catch-up', { onlyCatchUp: false }],
    ['created in a range', { createdAfterMs: CATCH_UP - HOUR, createdBeforeMs: CATCH_UP, sortDescending: false, pageSize: 7, page: 2 }],
    ['created after the catch-up', { createdAfterMs: CATCH_UP + 1 }],
    ['search: a type', { searchTerm: 'Probe' }],
    ['search: a handler', { searchTerm: 'InvoiceHandler', sortBy: 'Type' }],
    ['search: a key', { searchTerm: 'billing-run' }],
    ['search: a short key', { searchTerm: 'ac' }],
    ['search: names and arguments', { searchTerm: 'ACME-42', searchTermRequestTerms: ['ACME-42'], pageSize: 25, page: 2 }],
    ['argument search', { requestSearch: ['ACME-42'] }],
    ['argument search, oldest first, deep page', { requestSearch: ['ACME-42'], sortDescending: false, page: 5 }],
    ['argument search with a queue, by type', { requestSearch: ['ACME-42'], queueName: 'billing', sortBy: 'Type' }],
    ['argument search with Pending, by status', { requestSearch: ['newsletter'], statuses: ['Pending'], sortBy: 'Status' }],
    ['argument phrase', { requestSearch: ['db-7'], sortBy: 'LastExecutionUtc' }],
    ['by execution time', { sortBy: 'ExecutionTimeMs', pageSize: 10 }],
    ['by start, ascending', { sortBy: 'StartedAtUtc', sortDescending: false, pageSize: 10 }],
    ['by queue', { sortBy: 'QueueName', page: 4 }],
    // A few schedules' rows in due order (one read of all their rows, sorted): most share the catch-up's due time, so seq orders them.
    ['a queue, by due time', { queueName: 'billing', sortBy: 'ScheduledExecutionUtc' }],
    ['a queue, by due time, oldest first, deep page', { queueName: 'billing', sortBy: 'ScheduledExecutionUtc', sortDescending: false, pageSize: 30, page: 9 }],
    ['two schedules (argument search), by due time', { requestSearch: ['ACME-42'], sortBy: 'ScheduledExecutionUtc', pageSize: 20 }],
    ['two schedules (argument search), by due time, oldest first, page 4', { requestSearch: ['ACME-42'], sortBy: 'ScheduledExecutionUtc', sortDescending: false, pageSize: 20, page: 4 }],
    ['a type substring, by due time, last page', { taskType: 'o', sortBy: 'ScheduledExecutionUtc', pageSize: 40, page: 12 }],
  ];
  it.each(LISTS)('GET /tasks: %s', async (_name, q) => {
    const page = await same((b) => b.store.listTasks({ ...base, ...q }));
    if (q.page === undefined || q.page < 100) expect(page.totalCount).toBeGreaterThan(0);
  });

  it('GET /tasks over HTTP, with a parent and with the query string of the dashboard', async () => {
    const [schedule] = await compact.scheduleIds();
    const page = (await same(http(`/tasks?parentTaskId=${schedule}&pageSize=40&page=2&sortDescending=false`))) as { totalCount: number; items: { id: string }[] };
    expect(page.items).toHaveLength(40);
    await same(http(`/tasks?searchTerm=ACME-42&searchScope=NamesAndArguments&pageSize=15&page=3`));
    await same(http(`/tasks?statuses=Pending&onlyOccurrences=true&sortBy=Status&pageSize=100`));
    await same(http(`/queues/ops/tasks?pageSize=10&page=2`));
    await same(http(`/tasks/counts`));
  });

  it('task ids of a bulk action and management targets', async () => {
    const filters: TaskListFilter[] = [{}, { statuses: ['Pending'] }, { queueName: 'ops' }, { requestSearch: ['ACME-42'] }, { onlyOccurrences: true, taskType: 'Reports' }];
    for (const f of filters) {
      await same((b) => b.store.taskIds(f, 1000));
      await same((b) => b.store.taskIds(f, 17));
    }
    const occurrenceIds = await same((b) => b.store.taskIds({ onlyOccurrences: true }, 5000));
    expect(occurrenceIds).toHaveLength(OCCURRENCES);
    for (const id of [occurrenceIds[0]!, occurrenceIds[400]!, ...(await compact.scheduleIds()), guid(3)]) {
      const target = await same((b) => b.store.managementTarget(id));
      expect(target).toBeDefined();
    }
    await same((b) => b.store.managementTarget(guid(99)));
    await same((b) => b.store.scheduleStates());
  });

  it('GET /tasks/{id}, its status audit, runs and logs of occurrences at every audit level', async () => {
    // The first and last occurrence of each schedule.
    const sample: string[] = [];
    for (const parentTaskId of await compact.scheduleIds()) {
      const of = await compact.store.taskIds({ parentTaskId }, 5000);
      sample.push(of[0]!, of.at(-1)!);
    }
    const levels = new Set<string>();
    for (const id of sample) {
      const detail = (await same(http(`/tasks/${id}`))) as { auditLevel: string; statusAudits: unknown[]; statusAuditsTotalCount: number };
      levels.add(detail.auditLevel);
      expect(detail.statusAuditsTotalCount).toBe(detail.auditLevel === 'Full' ? 1 : 0);
      await same(http(`/tasks/${id}/status-audit?skip=0&take=10`));
      await same(http(`/tasks/${id}/status-audit?skip=1&take=10`));
      await same(http(`/tasks/${id}/runs-audit`));
      await same(http(`/tasks/${id}/execution-logs`));
    }
    expect([...levels].sort()).toEqual(['ErrorsOnly', 'Full', 'None']);
    for (const id of [...(await compact.scheduleIds()), guid(1), guid(3)]) await same(http(`/tasks/${id}`));
    const [a, b] = await both(async (s) => (await getJson(`${s.served.api}/tasks/${guid(99)}/status-audit`, s.token)).status);
    expect([a, b]).toEqual([404, 404]);
  });

  it('GET /tasks/{id}/occurrences: newest slot first, paged, non-terminal only', async () => {
    const scheduleIds = await compact.scheduleIds();
    for (const id of scheduleIds) {
      await same(http(`/tasks/${id}/occurrences`));
      await same(http(`/tasks/${id}/occurrences?skip=50&take=25`));
      await same(http(`/tasks/${id}/occurrences?nonTerminalOnly=true&skip=3&take=0`));
    }
    const page = (await same((b) => b.store.occurrences(scheduleIds[0]!, true, { skip: 10, take: 5 })))!;
    expect(page.totalCount).toBe(360);
  });

  it('the dashboard: overview (catch-up backlog, zone edges), counts, types, queues, recent activity', async () => {
    for (const range of ['Today', 'Week', 'Month', 'All'] as const) {
      for (const timeZone of [undefined, 'Asia/Kolkata', 'America/St_Johns', 'Asia/Kathmandu']) {
        const overview = await same((b) => b.store.overview(range, NOW, timeZone));
        expect(overview.catchUpBacklog.pending).toBe(OCCURRENCES);
        await same((b) => b.store.taskTypes(range, NOW, timeZone));
      }
    }
    // A range that starts inside an hour: its first partial hour holds compact occurrences.
    await same((b) => b.store.overview('Today', CATCH_UP + 30 * MIN, 'Asia/Kolkata'));
    await same(http(`/dashboard/overview?range=Today&timeZone=Asia%2FKolkata`));
    await same((b) => b.store.counts());
    await same((b) => b.store.queueMetrics(NOW));
    await same((b) => b.store.recentActivity(50));
    await same(http(`/dashboard/recent-activity?limit=500`));
  });
});

describe('partly turned into task rows, a catch-up still reads as task rows', () => {
  let mixed: Built;
  let rows: Built;
  beforeAll(async () => {
    [mixed, rows] = await buildPair();
    // The first 150 due, and every occurrence of one schedule (as a change of it would), become task rows.
    expect(await spill(mixed.t, { due: CATCH_UP }, 150)).toBe(150);
    const [, mail] = await mixed.scheduleIds();
    await spill(mixed.t, { scheduleId: mail! });
    expect(Number(await mixed.t.probe.value('SELECT COUNT(*) FROM pending_occurrences'))).toBeGreaterThan(100);
  }, 60_000);
  afterAll(async () => {
    await mixed?.close();
    await rows?.close();
  });

  /** Ids in a list's order where its sort keys tie may differ (a spilled row takes a new insertion number): compared as sets. */
  const byId = <T extends { items: { id: string }[] }>(page: T) => ({ ...page, items: [...page.items].sort((a, b) => a.id.localeCompare(b.id)) });
  const same = async <T>(read: (b: Built) => Promise<T>, normalize: (v: T) => unknown = (v) => v) => {
    const [a, b] = [await read(mixed), await read(rows)];
    expect(withoutAuditIds(normalize(a))).toEqual(withoutAuditIds(normalize(b)));
  };

  it('lists (as sets of rows), counts, details, audits, occurrences and the overview answer as on task rows', async () => {
    const all = { ...base(), pageSize: 500 };
    for (const q of [{}, { statuses: ['Pending'] as const }, { requestSearch: ['ACME-42'] }, { onlyOccurrences: true, queueName: 'ops' }, { searchTerm: 'Mail' }]) {
      await same((b) => b.store.listTasks({ ...all, ...q, statuses: q.statuses && [...q.statuses] }), byId);
    }
    // A page of one schedule's occurrences by due time holds the same rows.
    const scheduleIds = await mixed.scheduleIds();
    await same((b) => b.store.listTasks({ ...base(), onlyOccurrences: true, sortBy: 'ScheduledExecutionUtc', parentTaskId: scheduleIds[0], page: 3 }), byId);
    for (const id of scheduleIds) {
      await same((b) => b.store.occurrences(id, false, { skip: 0, take: 500 }));
      await same((b) => b.store.occurrences(id, true, { skip: 5, take: 7 }));
    }
    const ids = await mixed.store.taskIds({ onlyOccurrences: true }, 5000);
    expect(ids).toHaveLength(OCCURRENCES);
    expect([...ids].sort()).toEqual([...(await rows.store.taskIds({ onlyOccurrences: true }, 5000))].sort());
    for (const id of ids.filter((_, i) => i % 37 === 0)) {
      await same((b) => b.store.getTask(id));
      await same((b) => b.store.statusAudits(id, { skip: 0, take: 5 }));
    }
    await same((b) => b.store.counts());
    await same((b) => b.store.overview('Today', NOW, 'Asia/Kolkata'));
    await same((b) => b.store.overview('Week', NOW));
  });
});

describe('without compact rows a read asks what it always asked', () => {
  it('the task list, detail and audits issue the same SQL as a store without compact occurrences (but for the one probe)', async () => {
    const t = openMonitoredStore();
    try {
      const id = await t.seed((db) => insertTask(db, { created_at: T0, request: '{"customer":"ACME-42"}' }));
      const inner = readDbOf(await storageOf(t));
      expect(inner.features.pendingOccurrences).toBe(true);
      const recorded = (features: ReadDb['features']) => {
        const texts: string[] = [];
        const db: ReadDb = { dialect: inner.dialect, features, query: (sql, params) => (texts.push(sql), inner.query(sql, params)) };
        return { texts, store: createMonitoringStore(db) };
      };
      const withCompact = recorded(inner.features);
      const without = recorded({ ...inner.features, pendingOccurrences: false });
      for (const s of [withCompact, without]) {
        await s.store.listTasks(base());
        await s.store.listTasks({ ...base(), requestSearch: ['ACME-42'] });
        await s.store.listTasks({ ...base(), statuses: ['Pending', 'Queued'], sortBy: 'Status' });
        await s.store.taskIds({ queueName: 'default' }, 10);
        await s.store.occurrences(id, false, { skip: 0, take: 10 });
        await s.store.overview('Today', T0 + 10 * MIN, 'Asia/Kolkata');
      }
      const probe = 'SELECT EXISTS (SELECT 1 FROM pending_occurrences) AS e';
      expect(withCompact.texts).toContain(probe);
      // (Reads run at once may be issued in another order.)
      expect(withCompact.texts.filter((t) => t !== probe).sort()).toEqual([...without.texts].sort());
    } finally {
      await t.destroy();
    }
  });
});

function base(): TaskListQuery {
  return { sortBy: 'CreatedAtUtc', sortDescending: true, page: 1, pageSize: 50 };
}
