/**
 * Stall benchmark: a second process holds `BEGIN EXCLUSIVE` on the engine's SQLite file for 20 s
 * while 1,000 tasks with execution logs run. Measures the latency of GET /svc-monitoring/api/config
 * (served by the same process as the engine) during the lock, then checks that every task was
 * Completed exactly once and every log row is present. Last line: one JSON object.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import express from 'express';
import { createEngine, createMonitoring, openSqliteStorage } from '../server/src/index.js';

const TASKS = Number(process.env['BENCH_TASKS'] ?? 1000);
const LOCK_MS = Number(process.env['BENCH_LOCK_MS'] ?? 20_000);
const LOGS_PER_TASK = 3;
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-stall-'));
const file = join(dir, 'tasks.db');

/** A separate process that takes the write lock, reports it, holds it, then commits. */
function holdLock(ms: number): { locked: Promise<void>; done: Promise<void> } {
  const script = `
    const Database = require(${JSON.stringify(createRequire(import.meta.url).resolve('better-sqlite3'))});
    const db = new Database(${JSON.stringify(file)});
    db.pragma('busy_timeout = 10000');
    db.exec('BEGIN EXCLUSIVE');
    process.stdout.write('locked\\n');
    setTimeout(() => { db.exec('COMMIT'); db.close(); process.exit(0); }, ${ms});`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const locked = new Promise<void>((resolve) => child.stdout.on('data', (d: Buffer) => d.toString().includes('locked') && resolve()));
  const done = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return { locked, done };
}

try {
  const storage = openSqliteStorage({ file });
  const engine = createEngine({ storage, queues: { default: { concurrency: 4 } }, pollIntervalMs: 100, onError: () => undefined });
  engine.on('error', () => undefined);
  const completedEvents = new Map<string, number>();
  engine.handle('Stall.Job', async (req: { n: number }, ctx) => {
    for (let i = 0; i < LOGS_PER_TASK; i++) ctx.log.info(`task ${req.n} step ${i}`);
    await new Promise((r) => setTimeout(r, 5));
  });
  engine.on('event', (e) => {
    if (e.kind === 'Completed') completedEvents.set(e.taskId, (completedEvents.get(e.taskId) ?? 0) + 1);
  });
  const monitoring = createMonitoring({ engine, storage }, { logger: { info: () => undefined, warn: () => undefined } });
  const app = express();
  app.use(monitoring.router);
  const server = await new Promise<import('node:http').Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  monitoring.attach(server);
  await monitoring.ready;
  const configUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/svc-monitoring/api/config`;
  await engine.start();

  const ids = Array.from({ length: TASKS }, (_, n) => engine.dispatch('Stall.Job', { n }));
  const lock = holdLock(LOCK_MS);
  await lock.locked;
  const lockStart = performance.now();
  const latencies: number[] = [];
  let lockOver = false;
  void lock.done.then(() => (lockOver = true));
  while (!lockOver) {
    const t0 = performance.now();
    const res = await fetch(configUrl);
    await res.arrayBuffer();
    latencies.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 20));
  }
  const lockHeldMs = performance.now() - lockStart;
  const healthDuringLock = engine.health();
  const taskIds = await Promise.all(ids);
  const deadline = Date.now() + 120_000;
  const q = (sql: string, ...p: unknown[]) => storage.db.prepare(sql).pluck().get(...p) as number;
  while (q(`SELECT COUNT(*) FROM tasks WHERE type = 'Stall.Job' AND status = 'Completed'`) < TASKS && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
  }
  while (completedEvents.size < TASKS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  await engine.stop();
  const completedRows = q(`SELECT COUNT(*) FROM tasks WHERE type = 'Stall.Job' AND status = 'Completed'`);
  const completedAudits = q(`SELECT COUNT(*) FROM status_audit WHERE new_status = 'Completed'`);
  const logRows = q('SELECT COUNT(*) FROM execution_logs');
  const distinctIds = new Set(taskIds).size;
  const lost = TASKS - completedRows + Math.max(0, TASKS * LOGS_PER_TASK - logRows);
  const duplicates = [...completedEvents.values()].reduce((n, c) => n + (c - 1), 0) + Math.max(0, completedAudits - TASKS) +
    Math.max(0, logRows - TASKS * LOGS_PER_TASK) + (TASKS - distinctIds);
  await monitoring.close();
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  storage.close();

  latencies.sort((a, b) => a - b);
  const p99 = latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] ?? 0;
  const max = latencies.at(-1) ?? 0;
  const r1 = (n: number) => Math.round(n * 10) / 10;
  console.log(`lock                  another process held BEGIN EXCLUSIVE for ${Math.round(lockHeldMs)} ms`);
  console.log(`/config during lock   ${latencies.length} requests, p99 ${r1(p99)} ms, max ${r1(max)} ms (target max < 100 ms)`);
  console.log(`engine health         during the lock: ${healthDuringLock.status} (${healthDuringLock.unwrittenChanges} unwritten changes, oldest ${healthDuringLock.oldestUnwrittenMs} ms)`);
  console.log(`tasks                 ${completedRows}/${TASKS} Completed, ${completedAudits} Completed audits, ${logRows}/${TASKS * LOGS_PER_TASK} log rows`);
  console.log(JSON.stringify({ bench: 'stall', lockMs: LOCK_MS, configP99Ms: r1(p99), configMaxMs: r1(max), lost, duplicates }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
