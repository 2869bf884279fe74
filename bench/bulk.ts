// Benchmark of a bulk action (issue 17): `npm run bench:bulk`.
// 1. Seeds a file database with BENCH_BULK_ROWS (default 100,000) Failed one-shot tasks to retry
//    plus as many finished tasks of other types, in one transaction, then rebuilds the read
//    models and the argument index from them.
// 2. Starts a host (engine + monitoring, management enabled) in a child process.
// 3. Measures the API's p99 (GET /tasks, /tasks/counts, /queues in turn, one connection) for a
//    few seconds without a bulk action (the baseline of the same run), then starts
//    POST /management/bulk/retry over the Failed rows, measures the same requests while it
//    runs, and polls GET /management/bulk/{id} until it completes. The host has a handler for
//    the retried type, so the engine runs the requeued rows meanwhile, as it would in production.
// 4. Reports the host's event-loop delay during the bulk (p99 and max, perf_hooks) and its longest
//    blocks: each engine group commit, bulk batch and API request timed in the host, the longest
//    listed with what they carried, so a slow request can be traced to what it waited on.
// The last line is one JSON object. The database lives in a temp dir, deleted afterwards.
// BENCH_BULK_SEED_CACHE=<file> keeps the seeded database there and copies it on later runs.
import autocannon from 'autocannon';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { EngineStore } from '../server/src/storage/EngineStore.js';
import { openDatabase } from '../server/src/storage/sqlite/connection/openDatabase.js';
import { rebuildReadModels } from '../server/src/storage/sqlite/readModels/rebuildReadModels.js';
import { rebuildSearchRows } from '../server/src/storage/sqlite/readModels/rebuildSearchRows.js';
import { listenForParent, schedTimes, startServingChild } from './servingChild.js';

const ROWS = Number(process.env.BENCH_BULK_ROWS ?? 100_000);
const BASELINE_S = Number(process.env.BENCH_BULK_BASELINE_SECONDS ?? 4);
const SECRET = 'bench-secret-bench-secret-bench-secret-0123';

function seed(file: string): void {
  const db = openDatabase({ file });
  const insert = db.prepare(`INSERT INTO tasks (id, type, handler, request, queue, status, audit_level, created_at, scheduled_at,
    started_at, last_execution_at, execution_time_ms, run_count, last_outcome, exception)
    VALUES (?, ?, ?, ?, ?, ?, 'Full', ?, ?, ?, ?, ?, 1, ?, ?)`);
  const audit = db.prepare(`INSERT INTO status_audit (task_id, updated_at, new_status, exception) VALUES (?, ?, ?, ?)`);
  const now = Date.now();
  db.transaction(() => {
    for (let i = 0; i < 2 * ROWS; i++) {
      const failed = i % 2 === 0;
      const created = now - 86_400_000 + i;
      const type = failed ? 'Bench.Billing.SendInvoice' : 'Bench.Reports.Daily';
      const status = failed ? 'Failed' : 'Completed';
      const exception = failed ? `Error: SMTP 421 for invoice ${i}` : null;
      const id = randomUUID();
      insert.run(id, type, `${type}Handler`, `{"invoice":${i},"customer":"CUST-${i % 5000}"}`, i % 3 === 0 ? 'mail' : 'default', status,
        created, created, created + 5, created + 20, failed ? 0 : 15, status, exception);
      audit.run(id, created, 'Queued', null);
      audit.run(id, created + 20, status, exception);
    }
  })();
  // Raw inserts keep no read model: count, group and index the seeded rows as the task writer would have.
  rebuildReadModels(db);
  rebuildSearchRows(db);
  db.exec('ANALYZE');
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

interface LoopReport {
  p99Ms: number;
  maxMs: number;
  meanMs: number;
  byLabel: { label: string; count: number; totalMs: number; maxMs: number; cpuMs: number; runQueueMs: number; cpuP99Ms: number; cpuMaxMs: number }[];
  longest: { label: string; ms: number; cpuMs: number; runQueueMs: number; detail: string }[];
}

const round1 = (n: number) => Math.round(n * 10) / 10;

/** p99 of the read requests over `durationS`, or until `stop()` says so. */
async function apiLatency(base: string, token: string, durationS: number, stop?: () => boolean) {
  const api = '/svc-monitoring/api';
  const paths = [`${api}/tasks`, `${api}/tasks/counts`, `${api}/queues`, `${api}/tasks?statuses=Failed`];
  let i = 0;
  const instance = autocannon({
    url: base,
    connections: 1,
    duration: durationS,
    headers: { authorization: `Bearer ${token}` },
    requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: paths[i++ % paths.length]! }) }],
  });
  let timer: NodeJS.Timeout | undefined;
  // autocannon returns an instance that is also a promise; stop() ends the run early.
  if (stop) timer = setInterval(() => stop() && (instance as unknown as { stop(): void }).stop(), 50);
  const result = await instance;
  clearInterval(timer);
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${result.non2xx} non-2xx, ${result.errors} errors`);
  return { p50: result.latency.p50, p99: result.latency.p99, requests: result.requests.total };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-bulk-'));
  const file = join(dir, 'bench.db');
  let child: ChildProcess | undefined;
  try {
    let t0 = performance.now();
    const cache = process.env.BENCH_BULK_SEED_CACHE;
    if (cache !== undefined && existsSync(cache)) {
      copyFileSync(cache, file);
      console.log(`copied the seeded database from ${cache}`);
    } else {
      seed(file);
      if (cache !== undefined) copyFileSync(file, cache);
      console.log(`seeded ${(2 * ROWS).toLocaleString('en')} tasks (${ROWS.toLocaleString('en')} Failed) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    }
    const started = await startServingChild(import.meta.url, ['--serve', file]);
    child = started.child;
    const base = `http://127.0.0.1:${started.port}`;
    const api = `${base}/svc-monitoring/api`;
    const login = await fetch(`${api}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'operator', password: 'operator-pw' }) });
    const token = ((await login.json()) as { token: string }).token;
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

    const before = await apiLatency(base, token, BASELINE_S);
    console.log(`API without bulk: p50 ${before.p50} ms, p99 ${before.p99} ms (${before.requests} requests)`);

    const filter = { statuses: ['Failed'], taskType: 'Bench.Billing.SendInvoice' };
    await fetch(`${base}/bench/loop/reset`, { method: 'POST' });
    t0 = performance.now();
    const res = await fetch(`${api}/management/bulk/retry`, { method: 'POST', headers: auth, body: JSON.stringify({ filter, expectedCount: ROWS }) });
    const op = (await res.json()) as { operationId: string; count: number };
    if (res.status !== 200) throw new Error(`bulk answered ${res.status}: ${JSON.stringify(op)}`);
    if (op.count !== ROWS) throw new Error(`the bulk filter matched ${op.count} rows, not the ${ROWS} seeded: nothing to measure`);
    let done: { state: string; succeeded: number; skipped: number } | undefined;
    const poll = (async () => {
      for (;;) {
        const s = (await (await fetch(`${api}/management/bulk/${op.operationId}`, { headers: auth })).json()) as { state: string; succeeded: number; skipped: number };
        if (s.state !== 'Running') {
          done = s;
          return performance.now() - t0;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const during = await apiLatency(base, token, 120, () => done !== undefined);
    const ms = Math.round(await poll);
    console.log(`bulk retry of ${op.count.toLocaleString('en')} rows: ${ms} ms (${done!.succeeded} succeeded, ${done!.skipped} skipped, state ${done!.state})`);
    const loop = (await (await fetch(`${base}/bench/loop`)).json()) as LoopReport;
    console.log(`API during bulk: p50 ${during.p50} ms, p99 ${during.p99} ms (${during.requests} requests)`);
    console.log(`host event-loop delay during bulk: p99 ${loop.p99Ms.toFixed(1)} ms, max ${loop.maxMs.toFixed(1)} ms, mean ${loop.meanMs.toFixed(2)} ms`);
    console.log('host blocks during bulk by what ran: count, total ms (on a CPU / waiting for one), longest ms; time on a CPU of one block: p99, max');
    for (const b of loop.byLabel.sort((x, y) => y.totalMs - x.totalMs)) {
      const cpu = /^(GET|POST) /.test(b.label) ? '' : `; on a CPU p99 ${b.cpuP99Ms}, max ${b.cpuMaxMs}`;
      console.log(`  ${b.label}: ${b.count}, ${b.totalMs} (${b.cpuMs} / ${b.runQueueMs}), ${b.maxMs}${cpu}`);
    }
    console.log('longest blocks: ms (on a CPU / waiting for one)');
    for (const b of loop.longest) console.log(`  ${b.ms} (${b.cpuMs} / ${b.runQueueMs}) ${b.label}: ${b.detail}`);
    console.log('targets: 100,000 rows within 60 s; API p99 of /tasks and /tasks/counts < 25 ms');
    console.log(JSON.stringify({
      bench: 'bulk', rows: op.count, ms, apiP99DuringMs: during.p99, apiP99BeforeMs: before.p99, succeeded: done!.succeeded,
      loopDelayP99DuringMs: round1(loop.p99Ms), loopDelayMaxDuringMs: round1(loop.maxMs), loadAverage1m: round1(loadavg()[0]!),
    }));
  } finally {
    child?.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------- child mode: a host with the engine and the monitoring over the seeded file ----------
async function serveChild(): Promise<void> {
  const file = process.argv[3]!;
  const { createMonitoring } = await import('../server/src/monitoring/createMonitoring.js');
  const { createEngine } = await import('../server/src/engine/Engine.js');
  const { openSqliteStorage } = await import('../server/src/storage/sqlite/openSqliteStorage.js');
  const express = (await import('express')).default;
  const storage = openSqliteStorage({ file });
  // The retried rows run again as they are requeued (an instant handler), as on a real host.
  const engine = createEngine({ storage, queues: { default: { concurrency: 4 }, mail: { concurrency: 2 } } });
  engine.handle('Bench.Billing.SendInvoice', async () => {});
  const blocks = new BlockLog();
  const store = engine.store as { commit: EngineStore['commit']; management: EngineStore['management'] };
  const commit = store.commit.bind(store);
  store.commit = (batch) => blocks.time(`engine commit`, () => commit(batch), () =>
    `claims ${batch.dispatching ? 'yes' : 'no'}, finishes ${batch.completeRuns.length}, inserts ${batch.insertTasks.length}, logs ${batch.logs.length}`);
  const management = store.management;
  const applyBulkBatch = management.applyBulkBatch.bind(management);
  management.applyBulkBatch = (input) => blocks.time('bulk batch', () => applyBulkBatch(input), () => `${input.ids.length} rows`);
  await engine.start();
  const monitoring = createMonitoring({ engine, storage }, {
    jwtSecret: SECRET, loginRateLimit: false, enableUI: false, enableManagementEndpoints: true,
    managementUsername: 'operator', managementPassword: 'operator-pw', logger: { info: () => {}, warn: () => {} },
  });
  const app = express();
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  // Bench-only routes: reset the delay histogram and the block log (the bulk starts), read both.
  app.post('/bench/loop/reset', (_req, res) => {
    delay.reset();
    blocks.reset();
    res.json({});
  });
  app.get('/bench/loop', (_req, res) => {
    res.json({ p99Ms: delay.percentile(99) / 1e6, maxMs: delay.max / 1e6, meanMs: delay.mean / 1e6, ...blocks.report() });
  });
  // Each API request from its arrival until its answer is written (its handler reads synchronously).
  app.use((req, res, next) => {
    const t0 = performance.now();
    const path = req.path.replace(/^\/svc-monitoring\/api/, '').replace(/[0-9a-f]{8}-[0-9a-f-]{27}/, '{id}');
    res.on('finish', () => blocks.record(`${req.method} ${path}`, performance.now() - t0, req.url));
    next();
  });
  app.use(monitoring.router);
  const server = listenForParent(app);
  process.on('SIGTERM', () => server.close(() => void engine.stop({ graceMs: 100 }).then(() => process.exit(0))));
}


interface BlockSums {
  count: number;
  totalMs: number;
  maxMs: number;
  cpuMs: number;
  runQueueMs: number;
  /** Each block's time on a CPU: what it would hold the event loop for on a machine with a CPU to spare. */
  cpu: number[];
}

/**
 * Blocks of the host's event loop by what ran: count, total and longest per label, and the
 * longest few with details. Each timed block is split into time on a CPU, time waiting for one
 * (a loaded machine) and the rest (waiting for the disk: a WAL flush or checkpoint).
 */
class BlockLog {
  private byLabel = new Map<string, BlockSums>();
  private longest: { label: string; ms: number; cpuMs: number; runQueueMs: number; detail: string }[] = [];

  time<T>(label: string, work: () => T, detail: () => string): T {
    const t0 = performance.now();
    const [cpu0, wait0] = schedTimes();
    try {
      return work(); // the synchronous part: what holds the event loop
    } finally {
      const ms = performance.now() - t0;
      const [cpu1, wait1] = schedTimes();
      this.record(label, ms, detail(), (cpu1 - cpu0) / 1e6, (wait1 - wait0) / 1e6);
    }
  }

  record(label: string, ms: number, detail: string, cpuMs = 0, runQueueMs = 0): void {
    const s = this.byLabel.get(label) ?? { count: 0, totalMs: 0, maxMs: 0, cpuMs: 0, runQueueMs: 0, cpu: [] };
    s.count++;
    s.totalMs += ms;
    s.maxMs = Math.max(s.maxMs, ms);
    s.cpuMs += cpuMs;
    s.runQueueMs += runQueueMs;
    s.cpu.push(cpuMs);
    this.byLabel.set(label, s);
    if (this.longest.length < 12 || ms > this.longest[this.longest.length - 1]!.ms) {
      this.longest.push({ label, ms, cpuMs, runQueueMs, detail });
      this.longest.sort((a, b) => b.ms - a.ms);
      this.longest.length = Math.min(this.longest.length, 12);
    }
  }

  reset(): void {
    this.byLabel.clear();
    this.longest = [];
  }

  report() {
    const round = (n: number) => Math.round(n * 10) / 10;
    const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(0.99 * (xs.length - 1))] ?? 0;
    return {
      byLabel: [...this.byLabel].map(([label, s]) => ({
        label, count: s.count, totalMs: round(s.totalMs), maxMs: round(s.maxMs), cpuMs: round(s.cpuMs), runQueueMs: round(s.runQueueMs),
        cpuP99Ms: round(p99(s.cpu)), cpuMaxMs: round(Math.max(0, ...s.cpu)),
      })),
      longest: this.longest.map((b) => ({ ...b, ms: round(b.ms), cpuMs: round(b.cpuMs), runQueueMs: round(b.runQueueMs) })),
    };
  }
}

if (process.argv[2] === '--serve') await serveChild();
else await main();
