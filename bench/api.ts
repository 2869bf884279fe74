// Benchmark of the monitoring REST API: `npm run bench:api`.
// 1. Seeds a file database with BENCH_API_ROWS tasks (default 1,000,000; 10,000,000 for the
//    large run) and five status audits each, as a bulk load (bench/apiSeedSqlite.ts): secondary
//    indexes and triggers built once at the end, time-ordered ids, multi-row inserts, audits
//    generated set-based, then the set-based read-model rebuild, the argument index and ANALYZE.
//    BENCH_API_KEEP=1 keeps the file; BENCH_API_FILE=path measures such a file without seeding.
//    `--storage postgres` (or BENCH_API_STORAGE=postgres; server BENCH_PG, default the local one)
//    seeds its own PostgreSQL database instead (bench/apiSeedPostgres.ts), dropped at the end;
//    BENCH_API_KEEP=1 keeps it, BENCH_API_PG_DB=name measures such a database without seeding;
//    BENCH_API_PG_TAG=word puts the word in a seeded database's name (to find a kept one).
// 2. Starts the monitoring (standalone, authentication on) in a child process and measures each
//    endpoint from this process with autocannon over loopback (1 connection: latency = service time).
// 3. Times the bare SQL of GET /tasks (default page + count) in-process as the floor.
// 4. (SQLite) After the HTTP runs, splits argument search in-process: the full-text match alone
//    versus the match plus the sort keys the list reads from the search rows (other customers
//    than the HTTP run's, so that run found the page cache as it was).
// 5. `--metrics` (or BENCH_API_METRICS=1): also the Prometheus scrape GET /svc-monitoring/metrics
//    (the global gauges over the seeded store; a standalone monitoring has no engine families).
//    BENCH_API_ONLY=regex measures only the variants whose printed name matches (measure-only reruns).
// 6. The serving child's event-loop delay is read around each variant (bench-only routes): its
//    max is the longest any one read held the process (issue 42: no read blocks it > 50 ms).
// The last line is one JSON object. The database lives in a temp dir, deleted afterwards.
import autocannon from 'autocannon';
import type { Database } from 'better-sqlite3';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { openDatabase } from '../server/src/storage/sqlite/connection/openDatabase.js';
import { AUDITS_PER_TASK, SCHEDULES } from './apiData.js';
import { seedSqlite, type SeedTimings } from './apiSeedSqlite.js';
import { listenForParent, schedTimes, startServingChild } from './servingChild.js';

const ROWS = Number(process.env.BENCH_API_ROWS ?? 1_000_000);
if (!Number.isInteger(ROWS) || ROWS < 1_000) throw new Error(`BENCH_API_ROWS must be an integer ≥ 1000 (got ${process.env.BENCH_API_ROWS})`);
const DURATION_S = Number(process.env.BENCH_API_SECONDS ?? 3);
const METRICS = process.env.BENCH_API_METRICS === '1' || process.argv.includes('--metrics');
const STORAGE = process.env.BENCH_API_STORAGE ?? (process.argv.includes('--storage') ? process.argv[process.argv.indexOf('--storage') + 1] : 'sqlite');
if (STORAGE !== 'sqlite' && STORAGE !== 'postgres') throw new Error(`--storage / BENCH_API_STORAGE must be sqlite or postgres (got ${STORAGE})`);
const PG_ADMIN = process.env.BENCH_PG ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** A database seeded by an earlier run (BENCH_API_KEEP=1): measure only. */
const REUSE_FILE = process.env.BENCH_API_FILE;
const REUSE_PG_DB = process.env.BENCH_API_PG_DB;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** BENCH_API_ONLY=regex: measures only the variants whose name it matches (the others are reported as null). */
const ONLY = process.env.BENCH_API_ONLY ? new RegExp(process.env.BENCH_API_ONLY) : undefined;

/** Milliseconds to one decimal, as printed. */
const r1 = (ms: number) => Math.round(ms * 10) / 10;

interface Measured {
  p50: number;
  p99: number;
  rps: number;
  /** The serving process's event-loop delay max while the variant ran (ms). */
  loopMaxMs: number;
  /** Its longest garbage-collection pause meanwhile (ms). */
  gcMaxMs: number;
}

async function measure(base: string, token: string, name: string, paths: string[]): Promise<Measured> {
  if (ONLY && !ONLY.test(name)) return { p50: NaN, p99: NaN, rps: 0, loopMaxMs: NaN, gcMaxMs: NaN };
  // A list variant that answers nothing measures nothing: each must find rows (of its first paths).
  let body: { totalCount?: number } = {};
  for (const path of paths.slice(0, 10)) {
    const probe = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
    if (!probe.ok) throw new Error(`${name}: HTTP ${probe.status} for ${path}`);
    // The scrape is text: it has no totalCount to check.
    body = (probe.headers.get('content-type') ?? '').includes('json') ? ((await probe.json()) as { totalCount?: number }) : (await probe.text(), {});
    if (body.totalCount !== 0) break;
  }
  if (body.totalCount === 0) throw new Error(`${name}: the answers are empty (totalCount 0), so it would measure nothing`);
  let i = 0;
  await fetch(`${base}/bench/loop/reset`, { method: 'POST' });
  const result = await autocannon({
    url: base,
    connections: 1,
    duration: DURATION_S,
    headers: { authorization: `Bearer ${token}` },
    requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: paths[i++ % paths.length]! }) }],
  });
  const loop = (await (await fetch(`${base}/bench/loop`)).json()) as { maxMs: number; gcMaxMs: number; gap: { ms: number; cpuMs: number; runQueueMs: number } };
  const loopMaxMs = r1(loop.maxMs);
  const gcMaxMs = r1(loop.gcMaxMs);
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  // No answer within the window: the latency is at least the window (never reported as 0).
  const none = result.requests.total === 0;
  const out = none
    ? { p50: DURATION_S * 1000, p99: DURATION_S * 1000, rps: 0, loopMaxMs, gcMaxMs }
    : { p50: result.latency.p50, p99: result.latency.p99, rps: Math.round(result.requests.average), loopMaxMs, gcMaxMs };
  if (none) console.log(`${name}: no answer within ${DURATION_S} s (reported as ${DURATION_S * 1000} ms)`);
  const count = body.totalCount === undefined ? '' : `   totalCount ${body.totalCount.toLocaleString('en')}`;
  console.log(`${name.padEnd(44)} p50 ${String(out.p50).padStart(4)} ms   p99 ${String(out.p99).padStart(4)} ms   loop max ${String(loopMaxMs).padStart(5)} ms (gc ${gcMaxMs}; longest 5 ms tick ${r1(loop.gap.ms)}: cpu ${r1(loop.gap.cpuMs)}, run queue ${r1(loop.gap.runQueueMs)})   ${out.rps} req/s${count}`);
  return out;
}

/** Bare SQL floor of GET /tasks (default): the page on the created_at index plus the counter sum. */
function bareSqlFloor(db: Database): { p50: number; p99: number } {
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
  return bare;
}

/**
 * Argument search split into its two reads, in-process: the full-text match alone (the index's
 * doclists) and the match plus each matched search row's sort keys (one B-tree lookup per match).
 */
function requestSearchSplit(file: string): { matchP99: number; keysP99: number } {
  const db = openDatabase({ file, readonly: true });
  try {
    const match = db.prepare(`SELECT COUNT(*) FROM task_request_fts WHERE task_request_fts MATCH ?`).pluck();
    const keys = db.prepare(`SELECT COUNT(*), MAX(created_at) FROM task_search_rows
      WHERE id IN (SELECT rowid FROM task_request_fts WHERE task_request_fts MATCH ?)`);
    // Each run takes its own 200 customers, so the second does not find only the first's pages cached.
    const time = (shift: number, run: (term: string) => unknown): number[] => {
      const samples: number[] = [];
      for (let k = 0; k < 200; k++) {
        const s = performance.now();
        run(`"CUST-${(k * 37 + shift) % 5000}"`);
        samples.push(performance.now() - s);
      }
      return samples.sort((a, b) => a - b);
    };
    const m = time(11, (t) => match.get(t));
    const kk = time(23, (t) => keys.get(t));
    const line = (name: string, xs: number[]) =>
      console.log(`${name.padEnd(44)} p50 ${percentile(xs, 50).toFixed(1)} ms   p99 ${percentile(xs, 99).toFixed(1)} ms`);
    line('bare SQL requestSearch CUST-n: match only', m);
    line('bare SQL requestSearch CUST-n: + sort keys', kk);
    return { matchP99: percentile(m, 99), keysP99: percentile(kk, 99) };
  } finally {
    db.close();
  }
}

interface Prepared {
  rows: number;
  ids: string[];
  /** null: a database kept by an earlier run, measured without seeding. */
  seedS: number | null;
  timings?: SeedTimings;
  bare?: { p50: number; p99: number };
  /** Arguments of the child process that serves the monitoring over the seeded store. */
  serveArgs: string[];
  cleanup(): Promise<void>;
}

const loadLine = () => `load average ${loadavg().map((x) => x.toFixed(2)).join(', ')}`;

async function prepareSqlite(): Promise<Prepared> {
  const dir = REUSE_FILE ? undefined : mkdtempSync(join(tmpdir(), 'svc-bench-api-'));
  const file = REUSE_FILE ?? join(dir!, 'bench.db');
  const cleanup = async () => {
    if (!dir) return;
    if (process.env.BENCH_API_KEEP) console.log(`kept ${file}`);
    else rmSync(dir, { recursive: true, force: true });
  };
  try {
    let ids: string[];
    let seedS: number | null = null;
    let timings: SeedTimings | undefined;
    let rows = ROWS;
    if (REUSE_FILE && !existsSync(REUSE_FILE)) throw new Error(`BENCH_API_FILE: ${REUSE_FILE} does not exist`);
    const db = openDatabase({ file });
    if (REUSE_FILE) {
      rows = db.prepare('SELECT COALESCE(SUM(n), 0) FROM stat_tasks').pluck().get() as number;
      const every = Math.max(1, Math.floor(rows / 1000));
      ids = db.prepare(`SELECT id FROM tasks WHERE rowid % ? = 0 LIMIT 1000`).pluck().all(every) as string[];
      console.log(`measuring ${file} (${rows.toLocaleString('en')} tasks)`);
    } else {
      const seedStart = performance.now();
      ({ ids, timings } = seedSqlite(db, ROWS, Date.now(), (line) => console.log(line)));
      // The load ran with synchronous off: its pages are still being written back by the kernel.
      // Measuring while that writeback shares the disk would time the seed, not the service, so
      // the file is flushed first (and the flush counts as seeding).
      const flushStart = performance.now();
      const fd = openSync(file, 'r');
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      console.log(`flushed the file to disk in ${((performance.now() - flushStart) / 1000).toFixed(1)} s`);
      seedS = Math.round((performance.now() - seedStart) / 100) / 10;
      console.log(`seeding total ${seedS} s (${ROWS.toLocaleString('en')} tasks, ${(ROWS * AUDITS_PER_TASK).toLocaleString('en')} status audits); ${loadLine()}`);
    }
    const bare = bareSqlFloor(db);
    db.close();
    return { rows, ids, seedS, timings, bare, serveArgs: ['--serve', file], cleanup };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

/** PostgreSQL: its own database on the local server, created here and dropped at the end. */
async function preparePostgres(): Promise<Prepared> {
  const { admin: adminOn } = await import('./benchDatabase.js');
  const { openPostgresStorage } = await import('../server/src/storage/postgres/openPostgresStorage.js');
  const { seedPostgres } = await import('./apiSeedPostgres.js');
  const admin = async (sql: string) => {
    await adminOn(PG_ADMIN, sql);
  };
  const name = REUSE_PG_DB ?? `svc_bench_api_${process.env.BENCH_API_PG_TAG ? `${process.env.BENCH_API_PG_TAG}_` : ''}${Date.now().toString(36)}_${randomUUID().slice(0, 8)}`;
  if (!REUSE_PG_DB) await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(PG_ADMIN);
  url.pathname = `/${name}`;
  const cleanup = async () => {
    if (REUSE_PG_DB) return;
    if (process.env.BENCH_API_KEEP) console.log(`kept PostgreSQL database ${url.toString()}`);
    else await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  };
  try {
    // Opening runs the migrations this code knows (a database kept by older code is upgraded).
    const storage = await openPostgresStorage({ connectionString: url.toString(), rollupIntervalMs: 0 });
    try {
      if (REUSE_PG_DB) {
        const rows = Number((await storage.pool.query(`SELECT COALESCE(SUM(n), 0) AS n FROM "${storage.schema}".stat_tasks_v`)).rows[0].n);
        // About 1,000 ids spread over the table, as the seed's own sample is.
        const percent = Math.min(100, (1_500 / Math.max(rows, 1)) * 100);
        const ids = (await storage.pool.query(`SELECT id FROM "${storage.schema}".tasks TABLESAMPLE BERNOULLI (${percent}) LIMIT 1000`)).rows.map((r: { id: string }) => r.id);
        console.log(`measuring PostgreSQL database ${name} (${rows.toLocaleString('en')} tasks)`);
        return { rows, ids, seedS: null, serveArgs: ['--serve-pg', url.toString()], cleanup };
      }
      const seedStart = performance.now();
      const { ids, timings } = await seedPostgres(storage, ROWS, Date.now(), (line) => console.log(line));
      const seedS = Math.round((performance.now() - seedStart) / 100) / 10;
      console.log(`seeding total ${seedS} s (${ROWS.toLocaleString('en')} tasks, ${(ROWS * AUDITS_PER_TASK).toLocaleString('en')} status audits, PostgreSQL database ${name}); ${loadLine()}`);
      return { rows: ROWS, ids, seedS, timings, serveArgs: ['--serve-pg', url.toString()], cleanup };
    } finally {
      await storage.close();
    }
  } catch (err) {
    await cleanup();
    throw err;
  }
}

async function main(): Promise<void> {
  let child: ChildProcess | undefined;
  console.log(`storage ${STORAGE}; ${loadLine()} (${cpus().length} cores)`);
  const prepared = STORAGE === 'postgres' ? await preparePostgres() : await prepareSqlite();
  const { rows, ids, seedS, timings, bare } = prepared;
  try {
    const started = await startServingChild(import.meta.url, prepared.serveArgs);
    child = started.child;
    const base = `http://127.0.0.1:${started.port}`;
    const login = await fetch(`${base}/svc-monitoring/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: 'admin' }) });
    const token = ((await login.json()) as { token: string }).token;
    const api = '/svc-monitoring/api';
    const r: Record<string, Measured> = {};
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
    r.requestSearchOrder = await measure(base, token, 'GET /tasks?requestSearch=ORD-n (200 values)', customers.map((_, k) => `${api}/tasks?requestSearch=ORD-${SCHEDULES + ((k * 4999) % (rows - SCHEDULES))}`));
    r.requestSearchStatus = await measure(base, token, 'GET /tasks?requestSearch=CUST-n&statuses=Failed', customers.map((p) => `${p}&statuses=Failed`));
    r.trend = await measure(base, token, 'GET /statistics/success-rate-trend', [`${api}/statistics/success-rate-trend?period=Last90Days`]);
    r.types = await measure(base, token, 'GET /statistics/task-types?range=All', [`${api}/statistics/task-types?range=All`]);
    r.times = await measure(base, token, 'GET /statistics/execution-times?range=All', [`${api}/statistics/execution-times?range=All`]);
    if (METRICS) r.metrics = await measure(base, token, 'GET /svc-monitoring/metrics (scrape)', ['/svc-monitoring/metrics']);

    const split = STORAGE === 'sqlite' ? requestSearchSplit(prepared.serveArgs[1]!) : undefined;
    // The longest the serving process's event loop was held during any variant, and by which.
    const [loopWorst, loopMax] = Object.entries(r).reduce<[string, number]>((w, [k, m]) => (m.loopMaxMs > w[1] ? [k, m.loopMaxMs] : w), ['', 0]);
    const tasksP99 = Math.max(r.tasksDefault!.p99, r.tasksStatus!.p99, r.tasksType!.p99, r.tasksSorted!.p99, r.tasksPage1000!.p99, r.tasksSearch!.p99, r.tasksFilters!.p99);
    console.log(`targets: /tasks and /tasks/counts p99 < 25 ms, overview All p99 < 100 ms, detail p99 < 10 ms, requestSearch p99 < 50 ms${METRICS ? ', metrics scrape p99 < 50 ms' : ''}, event-loop delay max < 50 ms (worst: ${loopWorst}, ${loopMax} ms)`);
    console.log(
      JSON.stringify({
        bench: 'api',
        storage: STORAGE,
        rows,
        seedS,
        ...(timings ? { seed: timings } : {}),
        loadAverage: loadavg().map((x) => Math.round(x * 100) / 100),
        tasksP99Ms: tasksP99,
        countsP99Ms: r.counts!.p99,
        overviewAllP99Ms: r.overviewAll!.p99,
        overviewZonedP99Ms: Math.max(r.overviewLaToday!.p99, r.overviewLaAll!.p99),
        detailP99Ms: r.detail!.p99,
        requestSearchP99Ms: Math.max(r.requestSearch!.p99, r.requestSearchOrder!.p99, r.requestSearchStatus!.p99),
        bareSqlP99Ms: bare ? Math.round(bare.p99 * 1000) / 1000 : null,
        ...(r.metrics ? { metricsScrapeP99Ms: r.metrics.p99 } : {}),
        eventLoopMaxMs: loopMax,
        eventLoopWorstVariant: loopWorst,
        ...(split ? { requestSearchMatchP99Ms: Math.round(split.matchP99 * 10) / 10, requestSearchKeysP99Ms: Math.round(split.keysP99 * 10) / 10 } : {}),
      }),
    );
  } finally {
    if (child) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await prepared.cleanup();
  }
}

// ---------- child mode: serve the monitoring over the seeded store ----------
async function serveChild(): Promise<void> {
  const { createMonitoring } = await import('../server/src/monitoring/createMonitoring.js');
  const express = (await import('express')).default;
  const options = { jwtSecret: 'bench-secret-bench-secret-bench-secret-0123', loginRateLimit: false, enableUI: false, logger: { info: () => {}, warn: () => {} } };
  let close: () => Promise<void> = async () => {};
  let monitoring: Awaited<ReturnType<typeof createMonitoring>>;
  if (process.argv[2] === '--serve-pg') {
    const { openPostgresStorage } = await import('../server/src/storage/postgres/openPostgresStorage.js');
    const storage = await openPostgresStorage({ connectionString: process.argv[3]!, rollupIntervalMs: 0 });
    monitoring = createMonitoring({ storage }, options);
    // The monitoring first: over PostgreSQL its alert and gauge leadership holds a pooled connection
    // that the storage's close would wait for.
    close = async () => {
      await monitoring.close();
      await storage.close();
    };
  } else {
    const db = openDatabase({ file: process.argv[3]!, readonly: true });
    monitoring = createMonitoring({ storage: { db } }, options);
    close = () => monitoring.close();
  }
  const app = express();
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  // The longest garbage-collection pause, beside it: a block the reads did not cause.
  let gcMaxMs = 0;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcMaxMs = Math.max(gcMaxMs, e.duration);
  }).observe({ entryTypes: ['gc'] });
  // The longest gap between two ticks of a 5 ms timer, split by the main thread's schedstat into
  // time on a CPU (this process's own work held the loop) and time waiting for one (the machine's
  // other processes held the cores): what a long delay was.
  let last = performance.now();
  let [cpu0, wait0] = schedTimes();
  let gap = { ms: 0, cpuMs: 0, runQueueMs: 0 };
  setInterval(() => {
    const now = performance.now();
    const [cpu1, wait1] = schedTimes();
    if (now - last > gap.ms) gap = { ms: now - last, cpuMs: (cpu1 - cpu0) / 1e6, runQueueMs: (wait1 - wait0) / 1e6 };
    [last, cpu0, wait0] = [now, cpu1, wait1];
  }, 5);
  // Bench-only routes: reset the delay histogram before a variant, read its max after it.
  app.post('/bench/loop/reset', (_req, res) => {
    delay.reset();
    gcMaxMs = 0;
    gap = { ms: 0, cpuMs: 0, runQueueMs: 0 };
    res.json({});
  });
  app.get('/bench/loop', (_req, res) => {
    res.json({ maxMs: delay.max / 1e6, gcMaxMs, gap });
  });
  app.use(monitoring.router);
  const server = listenForParent(app);
  process.on('SIGTERM', () => server.close(() => void close().finally(() => process.exit(0))));
}

if (process.argv[2] === '--serve' || process.argv[2] === '--serve-pg') await serveChild();
else await main();
