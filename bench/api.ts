// Benchmark of the monitoring REST API (issue 5): `npm run bench:api`.
// 1. Seeds a file database with BENCH_API_ROWS tasks (default 1,000,000) and five status audits
//    each (statuses, queues, types, durable schedules, occurrences, inline recurring rows and
//    task keys spread over 90 days) as a bulk load: secondary indexes and read-model triggers are
//    dropped first and built once at the end, ids are time-ordered (UUIDv7) so the primary key
//    and the audit index only append, journal off during the load, commits every 50,000 tasks.
//    Then the read models are rebuilt from the table and ANALYZE runs (sampled).
// 2. Starts the monitoring (standalone, authentication on) in a child process and measures each
//    endpoint from this process with autocannon over loopback (1 connection: latency = service time).
// 3. Times the bare SQL of GET /tasks (default page + count) in-process as the floor.
// The last line is one JSON object. The database lives in a temp dir, deleted afterwards.
import autocannon from 'autocannon';
import type { Database } from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import { uuidV7 } from '../server/src/engine/schedules/uuidV7.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { rebuildReadModelsSql } from '../server/src/storage/migrations/002_readModels.js';
import { rebuildRequestSearchSql } from '../server/src/storage/migrations/006_search_failures_latency.js';
import { openDatabase } from '../server/src/storage/openDatabase.js';

const ROWS = Number(process.env.BENCH_API_ROWS ?? 1_000_000);
const AUDITS_PER_TASK = 5;
const DURATION_S = Number(process.env.BENCH_API_SECONDS ?? 3);
const DAY = 86_400_000;

function mulberry32(seed: number) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(rnd: () => number, weighted: readonly (readonly [T, number])[]): T {
  let r = rnd();
  for (const [v, w] of weighted) {
    if ((r -= w) < 0) return v;
  }
  return weighted[weighted.length - 1]![0];
}

const STATUSES = [
  ['Completed', 0.8], ['Failed', 0.08], ['Cancelled', 0.02], ['Pending', 0.03], ['Queued', 0.04],
  ['InProgress', 0.01], ['WaitingQueue', 0.01], ['ServiceStopped', 0.01],
] as const;
const QUEUES = [['default', 0.5], ['mail', 0.2], ['reports', 0.15], ['billing', 0.1], ['low', 0.05]] as const;
const TYPES = Array.from({ length: 40 }, (_, i) => `Contoso.Area${i % 8}.Job${i}`);

/** Indexes whose keys arrive in order during the load (they only append): kept. */
const APPEND_ONLY_INDEXES = ['ix_tasks_created', 'ix_status_audit_task'];

/** Drops the other secondary indexes and the triggers of the task tables; returns the SQL that recreates them. */
function dropForBulkLoad(db: Database): string[] {
  const objects = (
    db
      .prepare(`SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND ((type = 'index' AND tbl_name IN ('tasks', 'status_audit')) OR (type = 'trigger' AND tbl_name = 'tasks'))`)
      .all() as { type: string; name: string; sql: string }[]
  ).filter((o) => !APPEND_ONLY_INDEXES.includes(o.name));
  for (const o of objects) db.exec(`DROP ${o.type.toUpperCase()} ${o.name}`);
  return objects.map((o) => o.sql);
}

function seed(db: Database, now: number): { ids: string[]; recreate: string[] } {
  const rnd = mulberry32(42);
  const recreate = dropForBulkLoad(db);
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -262144');
  const randomUUID = () => uuidV7(now - 91 * DAY);
  const insertTask = db.prepare(`INSERT INTO tasks (id, type, handler, request, queue, status, task_key, audit_level, created_at,
    scheduled_at, started_at, last_execution_at, execution_time_ms, run_count, last_outcome, exception, is_recurring,
    occurrence_mode, misfire_policy, time_zone_id, schedule_version, halt, parent_task_id, nominal_slot_at, run_number, misfire_kind)
    VALUES (?, ?, ?, ?, ?, ?, ?, 'Full', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const insertAudit = db.prepare(`INSERT INTO status_audit (task_id, updated_at, new_status, exception) VALUES (?, ?, ?, ?)`);
  const insertAudits = db.prepare(
    `INSERT INTO status_audit (task_id, updated_at, new_status, exception) VALUES ${Array.from({ length: AUDITS_PER_TASK }, () => '(?, ?, ?, ?)').join(', ')}`,
  );
  const sampleIds: string[] = [];
  const schedules: { id: string; type: string; queue: string; next: number; run: number }[] = [];
  const SCHEDULES = 200;
  const begin = db.prepare('BEGIN');
  const commit = db.prepare('COMMIT');
  begin.run();
  {
    for (let s = 0; s < SCHEDULES; s++) {
      const id = randomUUID();
      const type = TYPES[s % TYPES.length]!;
      const queue = pick(rnd, QUEUES);
      insertTask.run(id, type, `${type}Handler`, '{}', queue, 'Pending', `schedule-${s}`, now - 90 * DAY, now + 60_000, null, null, null, 0, null, null, 1,
        'Durable', ['ReplayAll', 'SkipOldest', 'Collapse', 'Skip'][s % 4], 'Europe/Rome', 1,
        s % 50 === 0 ? JSON.stringify({ atUtc: new Date(now - DAY).toISOString(), reason: 'OverflowCapExceeded', detectedAtLeast: 150, isExact: true, cursorUtc: new Date(now - 2 * DAY).toISOString(), scheduleVersion: 1 }) : null,
        null, null, null, null);
      insertAudit.run(id, now - 90 * DAY, 'Pending', null);
      schedules.push({ id, type, queue, next: now - 90 * DAY, run: 0 });
    }
    let audits = SCHEDULES;
    const params: unknown[] = new Array(AUDITS_PER_TASK * 4);
    for (let i = SCHEDULES; i < ROWS; i++) {
      const created = now - Math.floor(((ROWS - i) / ROWS) * 90 * DAY);
      const id = uuidV7(created);
      const status = pick(rnd, STATUSES);
      const finished = status === 'Completed' || status === 'Failed';
      const dur = status === 'Completed' ? Math.round(5 + rnd() * 2000) : status === 'Failed' ? 0 : null;
      const started = finished || status === 'InProgress' || status === 'ServiceStopped' ? created + 50 : null;
      const ended = finished && dur !== null ? (started ?? created) + Math.max(dur, 3) : null;
      const isOccurrence = rnd() < 0.1;
      const recurring = !isOccurrence && rnd() < 0.0001;
      let type = TYPES[Math.floor(rnd() * TYPES.length)]!;
      let queue: string = pick(rnd, QUEUES);
      let parent: string | null = null;
      let slot: number | null = null;
      let runNumber: number | null = null;
      let kind: string | null = null;
      if (isOccurrence) {
        const sch = schedules[Math.floor(rnd() * SCHEDULES)]!;
        parent = sch.id;
        type = sch.type;
        queue = sch.queue;
        sch.next += 60_000 + Math.floor(rnd() * 60_000);
        slot = sch.next;
        runNumber = ++sch.run;
        kind = rnd() < 0.2 ? 'CatchUp' : 'OnTime';
      }
      const key = !isOccurrence && rnd() < 0.05 ? `order-${i}` : null;
      const exception = status === 'Failed' ? 'System.InvalidOperationException: boom\n   at Contoso.Job.Run()' : null;
      insertTask.run(id, type, `${type}Handler`, `{"n":${i},"customer":"CUST-${i % 5000}","order":"ORD-${i}"}`, queue, status, key, created, created, started, ended, dur,
        finished ? 1 : 0, finished ? status : null, exception, recurring ? 1 : 0,
        isOccurrence ? 'Durable' : null, null, isOccurrence ? 'Europe/Rome' : null, isOccurrence ? 1 : null, null,
        parent, slot, runNumber, kind);
      // Five transitions each: the row's own path, padded with retries.
      const path = finished
        ? ['Queued', 'InProgress', 'InProgress', 'InProgress', status]
        : status === 'Cancelled' ? ['Pending', 'Queued', 'Queued', 'Pending', 'Cancelled']
          : ['Pending', 'Pending', 'Queued', 'Queued', status];
      for (let a = 0; a < AUDITS_PER_TASK; a++) {
        params[a * 4] = id;
        params[a * 4 + 1] = created + a * 10;
        params[a * 4 + 2] = path[a]!;
        params[a * 4 + 3] = a === 4 ? exception : null;
      }
      insertAudits.run(params);
      audits += AUDITS_PER_TASK;
      if (i % Math.max(1, Math.floor(ROWS / 1000)) === 0) sampleIds.push(id);
      if (i % 50_000 === 0) {
        commit.run();
        begin.run();
      }
    }
    void audits;
  }
  commit.run();
  return { ids: sampleIds.slice(0, 1000), recreate };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function startChild(file: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--serve', file], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    rl.on('line', (line) => {
      const m = /^PORT (\d+)/.exec(line);
      if (m) resolve(Number(m[1]));
    });
    child.on('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
  return { child, port };
}

async function measure(base: string, token: string, name: string, paths: string[]): Promise<{ p50: number; p99: number; rps: number }> {
  let i = 0;
  const result = await autocannon({
    url: base,
    connections: 1,
    duration: DURATION_S,
    headers: { authorization: `Bearer ${token}` },
    requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: paths[i++ % paths.length]! }) }],
  });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  const out = { p50: result.latency.p50, p99: result.latency.p99, rps: Math.round(result.requests.average) };
  console.log(`${name.padEnd(44)} p50 ${String(out.p50).padStart(4)} ms   p99 ${String(out.p99).padStart(4)} ms   ${out.rps} req/s`);
  return out;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-api-'));
  const file = join(dir, 'bench.db');
  let child: ChildProcess | undefined;
  try {
    const now = Date.now();
    const db = openDatabase({ file });
    let t0 = performance.now();
    const seedStart = t0;
    const { ids, recreate } = seed(db, now);
    const loadS = (performance.now() - t0) / 1000;
    console.log(`loaded ${ROWS.toLocaleString('en')} tasks and ${(ROWS * AUDITS_PER_TASK).toLocaleString('en')} status audits in ${loadS.toFixed(1)} s (${Math.round((ROWS * (1 + AUDITS_PER_TASK)) / loadS).toLocaleString('en')} rows/s)`);
    t0 = performance.now();
    db.pragma('threads = 2');
    for (const sql of recreate.filter((x) => /^CREATE (UNIQUE )?INDEX/i.test(x))) db.exec(sql);
    const indexS = (performance.now() - t0) / 1000;
    console.log(`built ${recreate.filter((x) => /^CREATE (UNIQUE )?INDEX/i.test(x)).length} indexes in ${indexS.toFixed(1)} s`);
    t0 = performance.now();
    db.transaction(() => db.exec(rebuildReadModelsSql))();
    db.transaction(() => db.exec(rebuildRequestSearchSql))();
    for (const sql of recreate.filter((x) => /^CREATE TRIGGER/i.test(x))) db.exec(sql);
    db.pragma('analysis_limit = 1000');
    db.exec('ANALYZE');
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    const rebuildS = (performance.now() - t0) / 1000;
    const seedS = (performance.now() - seedStart) / 1000;
    console.log(`rebuilt read models, triggers and ANALYZE in ${rebuildS.toFixed(1)} s; seeding total ${seedS.toFixed(1)} s`);

    // Bare SQL floor of GET /tasks (default): the page on the created_at index plus the counter sum.
    const page = db.prepare(`SELECT id, type, status, queue, created_at, last_execution_at, started_at, scheduled_at, is_recurring,
      execution_time_ms, audit_level, parent_task_id, occurrence_mode, misfire_policy, time_zone_id, schedule_version, nominal_slot_at,
      misfire_kind FROM tasks ORDER BY created_at DESC, rowid DESC LIMIT 20 OFFSET 0`);
    const count = db.prepare(`SELECT SUM(n) FROM stat_tasks`).pluck();
    const samples: number[] = [];
    for (let i = 0; i < 5000; i++) {
      const s = performance.now();
      page.all();
      count.get();
      samples.push(performance.now() - s);
    }
    samples.sort((a, b) => a - b);
    const bare = { p50: percentile(samples, 50), p99: percentile(samples, 99) };
    console.log(`${'bare SQL of /tasks default (in-process)'.padEnd(44)} p50 ${bare.p50.toFixed(3)} ms   p99 ${bare.p99.toFixed(3)} ms`);
    db.close();

    const started = await startChild(file);
    child = started.child;
    const base = `http://127.0.0.1:${started.port}`;
    const login = await fetch(`${base}/svc-monitoring/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: 'admin' }) });
    const token = ((await login.json()) as { token: string }).token;
    const api = '/svc-monitoring/api';
    const r: Record<string, { p50: number; p99: number }> = {};
    r.tasksDefault = await measure(base, token, 'GET /tasks', [`${api}/tasks`]);
    r.tasksStatus = await measure(base, token, 'GET /tasks?statuses=Failed', [`${api}/tasks?statuses=Failed`]);
    r.tasksType = await measure(base, token, 'GET /tasks?taskType=Area3 (substring)', [`${api}/tasks?taskType=Area3`]);
    r.tasksSorted = await measure(base, token, 'GET /tasks?sortBy=ExecutionTimeMs', [`${api}/tasks?sortBy=ExecutionTimeMs`]);
    r.tasksPage1000 = await measure(base, token, 'GET /tasks?page=1000', [`${api}/tasks?page=1000`]);
    r.tasksSearch = await measure(base, token, 'GET /tasks?searchTerm=order-12 (search)', [`${api}/tasks?searchTerm=order-12`]);
    r.tasksFilters = await measure(base, token, 'GET /tasks?statuses=Failed&queueName=mail&isRecurring=false', [`${api}/tasks?statuses=Failed&queueName=mail&isRecurring=false`]);
    r.counts = await measure(base, token, 'GET /tasks/counts', [`${api}/tasks/counts`]);
    for (const range of ['Today', 'Week', 'Month', 'All']) {
      r[`overview${range}`] = await measure(base, token, `GET /dashboard/overview?range=${range}`, [`${api}/dashboard/overview?range=${range}`]);
    }
    for (const range of ['Today', 'All']) {
      r[`overviewLa${range}`] = await measure(base, token, `GET /dashboard/overview?range=${range}&timeZone=LA`, [`${api}/dashboard/overview?range=${range}&timeZone=America/Los_Angeles`]);
    }
    r.detail = await measure(base, token, 'GET /tasks/{id} (1,000 different ids)', ids.map((id) => `${api}/tasks/${id}`));
    r.queues = await measure(base, token, 'GET /queues', [`${api}/queues`]);
    // Argument search (full-text index over the request JSON): a customer (~200 rows), an order (1 row), with a status filter.
    const customers = Array.from({ length: 200 }, (_, k) => `${api}/tasks?requestSearch=CUST-${(k * 37) % 5000}`);
    r.requestSearch = await measure(base, token, 'GET /tasks?requestSearch=CUST-n (200 values)', customers);
    r.requestSearchOrder = await measure(base, token, 'GET /tasks?requestSearch=ORD-n (200 values)', customers.map((_, k) => `${api}/tasks?requestSearch=ORD-${(k * 4999) % ROWS}`));
    r.requestSearchStatus = await measure(base, token, 'GET /tasks?requestSearch=CUST-n&statuses=Failed', customers.map((p) => `${p}&statuses=Failed`));
    r.trend = await measure(base, token, 'GET /statistics/success-rate-trend', [`${api}/statistics/success-rate-trend?period=Last90Days`]);
    r.types = await measure(base, token, 'GET /statistics/task-types?range=All', [`${api}/statistics/task-types?range=All`]);
    r.times = await measure(base, token, 'GET /statistics/execution-times?range=All', [`${api}/statistics/execution-times?range=All`]);

    const tasksP99 = Math.max(r.tasksDefault!.p99, r.tasksStatus!.p99, r.tasksType!.p99, r.tasksSorted!.p99, r.tasksPage1000!.p99, r.tasksSearch!.p99, r.tasksFilters!.p99);
    console.log('targets: /tasks and /tasks/counts p99 < 25 ms, overview All p99 < 100 ms, detail p99 < 10 ms, requestSearch p99 < 50 ms');
    console.log(
      JSON.stringify({
        bench: 'api',
        rows: ROWS,
        seedS: Math.round(seedS * 10) / 10,
        tasksP99Ms: tasksP99,
        countsP99Ms: r.counts!.p99,
        overviewAllP99Ms: r.overviewAll!.p99,
        overviewZonedP99Ms: Math.max(r.overviewLaToday!.p99, r.overviewLaAll!.p99),
        detailP99Ms: r.detail!.p99,
        requestSearchP99Ms: Math.max(r.requestSearch!.p99, r.requestSearchOrder!.p99, r.requestSearchStatus!.p99),
        bareSqlP99Ms: Math.round(bare.p99 * 1000) / 1000,
      }),
    );
  } finally {
    child?.kill('SIGTERM');
    if (process.env.BENCH_API_KEEP) console.log(`kept ${file}`); else rmSync(dir, { recursive: true, force: true });
  }
}

// ---------- child mode: serve the monitoring over the seeded file ----------
async function serveChild(): Promise<void> {
  if (process.argv[2] !== '--serve') return;
  const file = process.argv[3]!;
  const { createMonitoring } = await import('../server/src/monitoring/createMonitoring.js');
  const express = (await import('express')).default;
  const db = openDatabase({ file, readonly: true });
  const monitoring = createMonitoring({ storage: { db } }, { jwtSecret: 'bench-secret-bench-secret-bench-secret-0123', loginRateLimit: false, enableUI: false, logger: { info: () => {}, warn: () => {} } });
  const app = express();
  app.use(monitoring.router);
  const server = app.listen(0, '127.0.0.1', () => {
    const addr = server.address();
    process.stdout.write(`PORT ${typeof addr === 'object' && addr ? addr.port : 0}\n`);
  });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}


if (process.argv[2] === '--serve') await serveChild();
else await main();
