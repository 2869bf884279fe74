/**
 * Engine benchmark: 20,000 no-op tasks, concurrency 4, every dispatch in flight at once, worker
 * running, file database. In the same run:
 * - the engine end to end (first dispatch → all Completed) at audit levels Full, ErrorsOnly and None;
 * - the peer: BullMQ on the local Redis (127.0.0.1:6379), the same 20,000 no-op jobs, concurrency 4,
 *   all adds in flight, worker running (first add → all completed);
 * - the floor: bare better-sqlite3 doing the same lifecycle by hand (insert + audit, update +
 *   audit, update + audit, one transaction each) on the project's schema, with the read-model
 *   deltas of each transaction written through the task writer as every writer does;
 * - the dispatch → Started latency of a lone task on an idle engine (p50 / p99, after a warm-up of
 *   500 tasks, whose own p99 is printed apart), next to the same percentiles of a fixed 0.25 ms of
 *   CPU work timed in the same loop (what the machine's scheduling adds to anything that short).
 * Each of BENCH_ROUNDS rounds (default 3) runs the engine at audit levels Full, ErrorsOnly and
 * None, then the peer; the figures are the medians, and the ratio the median of the rounds' Full /
 * peer ratios, each round's pair listed too.
 * BENCH_OBSERVABILITY=1 (or --observability) adds, in each round, an audit-Full run with metrics
 * and tracing on and one with tracing alone (bench/engineObservability.ts; =metrics or =tracing:
 * that part alone) and prints each one's ratio to the round's plain audit-Full run and to BullMQ.
 * The plain run comes first in even rounds and last in odd ones, and one unmeasured plain and one
 * observed run of a tenth of the tasks come before the first round: the first runs of a process
 * also compile the engine's and the SDK's code paths, which would fall on one side alone.
 * Last line: one JSON object. Where no Redis answers it says so and omits the peer fields.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Queue, Worker } from 'bullmq';
import { createEngine, openDatabase, openSqliteStorage, type AuditLevel } from '../server/src/index.js';
import { taskWriter } from '../server/src/storage/sqlite/readModels/taskWriter.js';
import { OBSERVED_VARIANTS, observe, type ObservedVariant } from './engineObservability.js';

// `--storage postgres` runs the PostgreSQL engine benchmark (bench/engine-pg.ts) instead.
const storageArg = process.argv.find((a, i, all) => a.startsWith('--storage=') || all[i - 1] === '--storage');
const storageKind = storageArg?.replace(/^--storage=/, '') ?? 'sqlite';
if (storageKind !== 'sqlite' && storageKind !== 'postgres') throw new Error(`bench:engine: option "--storage" must be sqlite or postgres (got "${storageKind}")`);
if (storageKind === 'postgres') {
  await import('./engine-pg.js');
  process.exit(0);
}

const TASKS = Number(process.env['BENCH_TASKS'] ?? 20_000);
const LONE_SAMPLES = Number(process.env['BENCH_LONE_SAMPLES'] ?? 1000);
/**
 * Lone tasks run before the measured ones: the first few hundred tasks of a new engine also pay
 * for compiling its code paths and for starting the store's checkpoint thread (once its WAL has
 * grown to 1 MB), so a host that has run for a minute never sees those. They are reported apart
 * (`cold`: the tasks after the first 20).
 */
const LONE_WARMUP = 500;
const ROUNDS = Math.max(1, Number(process.env['BENCH_ROUNDS'] ?? 3));
const REDIS = { host: '127.0.0.1', port: 6379 };
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-engine-'));
const round = (n: number) => Math.round(n);

let runNo = 0;
/** The largest (InProgress rows in the store − handlers running) seen by any engine run, sampled every 50 ms. */
let inProgressExcess = 0;
async function engineRun(auditLevel: AuditLevel, variant?: ObservedVariant, tasks = TASKS): Promise<{ dispatchPerSec: number; endToEndPerSec: number }> {
  const storage = openSqliteStorage({ file: join(dir, `engine-${auditLevel}-${++runNo}.db`) });
  const engine = createEngine({ storage, queues: { default: { concurrency: 4 } }, auditLevel, pollIntervalMs: 50 });
  let completed = 0;
  let resolveAll!: () => void;
  const all = new Promise<void>((r) => (resolveAll = r));
  let running = 0;
  engine.handle('Bench.NoOp', () => {
    running++;
    running--;
  });
  // A cheap sample on the engine's own connection (an index walk over the few InProgress rows).
  const countInProgress = storage.db.prepare(`SELECT COUNT(*) FROM tasks WHERE status = 'InProgress'`).pluck();
  const sampler = setInterval(() => {
    inProgressExcess = Math.max(inProgressExcess, (countInProgress.get() as number) - running);
  }, 50);
  engine.on('event', (e) => {
    if (e.kind === 'Completed' && ++completed === tasks) resolveAll();
  });
  const observation = variant ? observe(engine, storage, variant) : undefined;
  await engine.start();
  const t0 = performance.now();
  const ids: Promise<string>[] = [];
  for (let i = 0; i < tasks; i++) ids.push(engine.dispatch('Bench.NoOp', { i }));
  await Promise.all(ids);
  const tDispatched = performance.now();
  await all;
  const tDone = performance.now();
  clearInterval(sampler);
  await engine.stop();
  const seen = await observation?.detach();
  if (seen && ((seen.tracing && seen.spans === 0) || (seen.metrics && seen.scrapes === 0))) throw new Error(`observed run: ${seen.spans} spans, ${seen.scrapes} scrapes`);
  const db = storage.db;
  const done = db.prepare(`SELECT COUNT(*) FROM tasks WHERE status = 'Completed'`).pluck().get() as number;
  const audits = db.prepare('SELECT COUNT(*) FROM status_audit').pluck().get() as number;
  storage.close();
  const expectedAudits = auditLevel === 'Full' ? tasks * 3 : 0;
  if (done !== tasks || audits !== expectedAudits) throw new Error(`engine run (${auditLevel}) incomplete: ${done} completed, ${audits} audits`);
  return { dispatchPerSec: tasks / ((tDispatched - t0) / 1000), endToEndPerSec: tasks / ((tDone - t0) / 1000) };
}

let workSink = 0;
/** `loops` rounds of integer arithmetic: a fixed amount of CPU work. */
function fixedWork(loops: number): void {
  let x = workSink;
  for (let j = 0; j < loops; j++) x = (x * 31 + j) | 0;
  workSink = x;
}

/**
 * The loop count of `fixedWork` that takes `ms` on this machine (the fastest of several timings,
 * after a warm-up). A spin on process.cpuUsage() cannot serve: the kernel advances a process's CPU
 * time in scheduler ticks, so such a spin lasted up to 30 ms here and stalled the event loop.
 */
function calibrateFixedWork(ms: number): number {
  const probe = 200_000;
  fixedWork(probe * 5);
  let best = Infinity;
  for (let k = 0; k < 20; k++) {
    const t = performance.now();
    fixedWork(probe);
    best = Math.min(best, performance.now() - t);
  }
  return Math.max(1, Math.round((probe * ms) / best));
}

interface LoneLatency {
  p50: number;
  p99: number;
  coldP99: number;
  busyP50: number;
  busyP99: number;
}

/** dispatch() call → Started event of one task at a time on an otherwise idle engine. */
async function loneTaskLatency(): Promise<LoneLatency> {
  const storage = openSqliteStorage({ file: join(dir, 'lone.db') });
  const engine = createEngine({ storage, queues: { default: { concurrency: 4 } }, pollIntervalMs: 1000 });
  engine.handle('Bench.Lone', () => undefined);
  let onStarted: (() => void) | undefined;
  engine.on('event', (e) => {
    if (e.kind === 'Started') onStarted?.();
  });
  await engine.start();
  const cold: number[] = [];
  const samples: number[] = [];
  const busy: number[] = [];
  const workLoops = calibrateFixedWork(0.25);
  for (let i = 0; i < LONE_WARMUP + LONE_SAMPLES; i++) {
    const started = new Promise<void>((r) => (onStarted = r));
    const t0 = performance.now();
    void engine.dispatch('Bench.Lone', { i });
    await started;
    const ms = performance.now() - t0;
    if (i >= LONE_WARMUP) samples.push(ms);
    else if (i >= 20) cold.push(ms);
    await new Promise((r) => setTimeout(r, 1)); // idle again: its Completed is written
    const b0 = performance.now();
    fixedWork(workLoops); // the peer: the same 0.25 ms of CPU work each time, timed on the wall clock
    if (i >= LONE_WARMUP) busy.push(performance.now() - b0);
    await new Promise((r) => setTimeout(r, 1));
  }
  await engine.stop();
  storage.close();
  const at = (xs: number[], q: number) => Math.round(xs.sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]! * 1000) / 1000;
  return { p50: at(samples, 0.5), p99: at(samples, 0.99), coldP99: at(cold, 0.99), busyP50: at(busy, 0.5), busyP99: at(busy, 0.99) };
}

async function bullmqRun(): Promise<number | null> {
  const name = `svc-bench-${process.pid}-${Date.now()}`;
  const queue = new Queue(name, { connection: REDIS });
  try {
    await Promise.race([
      queue.waitUntilReady(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('no answer within 2 s')), 2000)),
    ]);
  } catch (err) {
    console.log(`bullmq peer           skipped: no Redis answers at ${REDIS.host}:${REDIS.port} (${(err as Error).message})`);
    await queue.close().catch(() => undefined);
    return null;
  }
  let completed = 0;
  let resolveAll!: () => void;
  const all = new Promise<void>((r) => (resolveAll = r));
  const worker = new Worker(name, async () => undefined, { connection: { ...REDIS, maxRetriesPerRequest: null }, concurrency: 4 });
  worker.on('completed', () => {
    if (++completed === TASKS) resolveAll();
  });
  await worker.waitUntilReady();
  const t0 = performance.now();
  const adds: Promise<unknown>[] = [];
  for (let i = 0; i < TASKS; i++) adds.push(queue.add('noop', { i }));
  await Promise.all(adds);
  await all;
  const t1 = performance.now();
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  return TASKS / ((t1 - t0) / 1000);
}

function bareRun(): number {
  const db = openDatabase({ file: join(dir, 'bare.db') });
  const insert = db.prepare(`INSERT INTO tasks (id, type, handler, request, queue, status, audit_level, created_at)
    VALUES (?, 'Bench.NoOp', 'Bench.NoOpHandler', ?, 'default', 'Queued', 'Full', ?)`);
  const audit = db.prepare('INSERT INTO status_audit (task_id, updated_at, new_status, exception) VALUES (?, ?, ?, NULL)');
  const start = db.prepare(`UPDATE tasks SET status = 'InProgress', started_at = ? WHERE id = ?`);
  const complete = db.prepare(`UPDATE tasks SET status = 'Completed', last_execution_at = ?, execution_time_ms = ?,
    last_outcome = 'Completed', run_count = run_count + 1 WHERE id = ?`);
  const write = taskWriter(db);
  const group = (createdAt: number) => ({ queue: 'default', type: 'Bench.NoOp', is_recurring: 0, is_occurrence: 0, created_at: createdAt });
  const created = new Map<string, number>();
  const tInsert = (id: string, i: number) =>
    write((d) => {
      const now = Date.now();
      const request = JSON.stringify({ i });
      insert.run(id, request, now);
      audit.run(id, now, 'Queued');
      created.set(id, now);
      d.inserted({ ...group(now), id, handler: 'Bench.NoOpHandler', request, status: 'Queued', task_key: null });
    });
  const tStart = (id: string) =>
    write((d) => {
      const now = Date.now();
      start.run(now, id);
      audit.run(id, now, 'InProgress');
      d.moved(group(created.get(id)!), 'Queued', 'InProgress');
    });
  const tComplete = (id: string) =>
    write((d) => {
      const now = Date.now();
      complete.run(now, 0.01, id);
      audit.run(id, now, 'Completed');
      d.moved(group(created.get(id)!), 'InProgress', 'Completed');
      d.ran({ taskId: id, type: 'Bench.NoOp', queue: 'default', endedAt: now, outcome: 'Completed', executionTimeMs: 0.01, exception: null });
    });
  const ids = Array.from({ length: TASKS }, () => randomUUID());
  const t0 = performance.now();
  for (let i = 0; i < TASKS; i++) tInsert(ids[i]!, i);
  for (let i = 0; i < TASKS; i++) {
    tStart(ids[i]!);
    tComplete(ids[i]!);
  }
  const t1 = performance.now();
  db.close();
  return TASKS / ((t1 - t0) / 1000);
}

try {
  const bareLifecyclePerSec = bareRun();
  // Engine (at each audit level) and peer alternate so that noise from other processes hits all alike.
  const rounds: { engine: number; bullmq: number | null }[] = [];
  const fulls: { dispatchPerSec: number; endToEndPerSec: number }[] = [];
  const errorsOnlys: number[] = [];
  const nones: number[] = [];
  /** Each observed variant's end-to-end rates, one per round. */
  const observeds = OBSERVED_VARIANTS.map((variant) => ({ variant, perSec: [] as number[] }));
  if (observeds.length > 0) {
    const warmUp = Math.max(1, Math.round(TASKS / 10));
    await engineRun('Full', undefined, warmUp);
    await engineRun('Full', OBSERVED_VARIANTS[0], warmUp);
  }
  for (let r = 0; r < ROUNDS; r++) {
    const plainLast = r % 2 === 1;
    for (const o of plainLast ? [...observeds].reverse() : []) o.perSec.push((await engineRun('Full', o.variant)).endToEndPerSec);
    const f = await engineRun('Full');
    fulls.push(f);
    for (const o of plainLast ? [] : observeds) o.perSec.push((await engineRun('Full', o.variant)).endToEndPerSec);
    errorsOnlys.push((await engineRun('ErrorsOnly')).endToEndPerSec);
    nones.push((await engineRun('None')).endToEndPerSec);
    rounds.push({ engine: f.endToEndPerSec, bullmq: rounds[0]?.bullmq === null ? null : await bullmqRun() });
  }
  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
  };
  const full = { dispatchPerSec: median(fulls.map((f) => f.dispatchPerSec)), endToEndPerSec: median(fulls.map((f) => f.endToEndPerSec)) };
  const peers = rounds.flatMap((r) => (r.bullmq === null ? [] : [{ engine: r.engine, bullmq: r.bullmq }]));
  const bullmqPerSec = peers.length === 0 ? null : median(peers.map((p) => p.bullmq));
  const ratio = peers.length === 0 ? null : median(peers.map((p) => p.engine / p.bullmq));
  const errorsOnlyPerSec = median(errorsOnlys);
  const nonePerSec = median(nones);
  // Each observed variant vs the plain run of its round, and vs BullMQ: medians of the per-round ratios.
  const observedFigures = observeds.map(({ variant, perSec }) => ({
    variant,
    perSec,
    onOff: median(perSec.map((o, i) => o / fulls[i]!.endToEndPerSec)),
    onVsBullmq: peers.length > 0 ? median(rounds.flatMap((p, i) => (p.bullmq === null ? [] : [perSec[i]! / p.bullmq]))) : null,
  }));
  const lone = await loneTaskLatency();
  console.log(`tasks                 ${TASKS} (no-op, concurrency 4, all dispatches in flight, file database)`);
  console.log(`dispatch              ${round(full.dispatchPerSec)} tasks/s (audit Full)`);
  console.log(`end-to-end            ${round(full.endToEndPerSec)} tasks/s (audit Full; first dispatch → all Completed)`);
  const listed = (xs: number[]) => (xs.length > 1 ? `; median of ${xs.map(round).join(', ')}` : '');
  console.log(`end-to-end            ${round(errorsOnlyPerSec)} tasks/s (audit ErrorsOnly${listed(errorsOnlys)})`);
  console.log(`end-to-end            ${round(nonePerSec)} tasks/s (audit None${listed(nones)})`);
  if (bullmqPerSec !== null) {
    console.log(`bullmq peer           ${round(bullmqPerSec)} jobs/s (Redis ${REDIS.host}:${REDIS.port}, same workload)`);
    console.log(`ratio vs bullmq       ${ratio!.toFixed(2)} (median of ${peers.length} alternating rounds: ${peers.map((p) => `${round(p.engine)}/${round(p.bullmq)}`).join(', ')}; target ≥ 1.5)`);
  }
  for (const { variant, perSec, onOff, onVsBullmq } of observedFigures) {
    console.log(`observability on      ${round(median(perSec))} tasks/s (audit Full, ${variant.parts}; median of ${perSec.map(round).join(', ')})`);
    console.log(`observability on/off  ${onOff.toFixed(2)} (${variant.parts}; median of per-round on / off: ${perSec.map((o, i) => (o / fulls[i]!.endToEndPerSec).toFixed(2)).join(', ')})${onVsBullmq !== null ? `; on vs bullmq ${onVsBullmq.toFixed(2)} (target ≥ 1.5)` : ''}`);
  }
  console.log(`in progress − running max ${inProgressExcess} (store's InProgress rows minus handlers running, sampled every 50 ms in every engine run; rows reserved ahead stay Queued)`);
  console.log(`bare lifecycle floor  ${round(bareLifecyclePerSec)} tasks/s (3 transactions per task by hand, read-model deltas included)`);
  console.log(`lone task             dispatch → Started p50 ${lone.p50} ms, p99 ${lone.p99} ms (idle engine, ${LONE_SAMPLES} tasks after ${LONE_WARMUP}; target p99 < 5 ms)`);
  console.log(`lone task, cold       dispatch → Started p99 ${lone.coldP99} ms (tasks 21–${LONE_WARMUP} of a new engine: code paths compiling, the checkpoint thread starting)`);
  console.log(`machine noise         0.25 ms of CPU work timed in the same loop: p50 ${lone.busyP50} ms, p99 ${lone.busyP99} ms`);
  console.log(
    JSON.stringify({
      bench: 'engine',
      tasks: TASKS,
      endToEndPerSec: round(full.endToEndPerSec),
      ...(bullmqPerSec !== null
        ? {
          bullmqPerSec: round(bullmqPerSec),
          ratioVsBullmq: Math.round(ratio! * 100) / 100,
          rounds: peers.map((p) => ({ endToEndPerSec: round(p.engine), bullmqPerSec: round(p.bullmq) })),
        }
        : {}),
      bareLifecyclePerSec: round(bareLifecyclePerSec),
      inProgressMinusRunningMax: inProgressExcess,
      dispatchPerSec: round(full.dispatchPerSec),
      endToEndErrorsOnlyPerSec: round(errorsOnlyPerSec),
      endToEndNonePerSec: round(nonePerSec),
      loneDispatchToStartedP50Ms: lone.p50,
      loneDispatchToStartedP99Ms: lone.p99,
      loneColdP99Ms: lone.coldP99,
      noiseBusyP50Ms: lone.busyP50,
      noiseBusyP99Ms: lone.busyP99,
      // Per variant: endToEnd{Observed,Traced,Metered}PerSec, {observed,traced,metered}VsPlain, ratio…VsBullmq.
      ...Object.fromEntries(
        observedFigures.flatMap(({ variant: { stem }, perSec, onOff, onVsBullmq }) => [
          [`endToEnd${stem}PerSec`, round(median(perSec))],
          [`${stem.toLowerCase()}VsPlain`, Math.round(onOff * 100) / 100],
          ...(onVsBullmq !== null ? [[`ratio${stem}VsBullmq`, Math.round(onVsBullmq * 100) / 100]] : []),
        ]),
      ),
    }),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
