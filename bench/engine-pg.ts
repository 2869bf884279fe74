/**
 * PostgreSQL engine benchmark: 20,000 no-op tasks, audit Full, concurrency 4 per instance, adds
 * in flight (every dispatch issued at once, instances running meanwhile), with 1 and 3 engine
 * instances (separate processes), and in the same run graphile-worker 0.18 on the same server
 * with the same workload, in its two ways of adding jobs: single `addJob` calls all in flight, and
 * `addJobs` batches (BENCH_GW_BATCH jobs each, default 500) all in flight; 1 and 3 runner
 * processes each. End to end = first add → last task finished. `ratio` is against the fastest
 * graphile-worker figure. Each scenario has its own database, dropped afterwards.
 * BENCH_TASKS (default 20000), BENCH_GW_BATCH (500), BENCH_PG_ASYNC=1 (commits that only claim and end
 * runs do not wait for the WAL flush), BENCH_CPU_PROF=<dir> (a V8 CPU profile per worker process),
 * BENCH_GW_ADDJOB=0 (skip the single-addJob runs: quicker measurements under load), BENCH_ONLY=svc|graphile
 * (one side only, for profiling; no ratio then). After each scenario: CPU ms per 1000 tasks of the
 * worker processes, of the PostgreSQL backends serving its database, of this process, and of the
 * rest of the machine (everything else running too on a loaded one).
 * BENCH_ROUNDS (default 3): the scenarios alternate round after round (the machine's load moves
 * both sides alike); the figures of the last line are those of the round with the median ratio,
 * every round's pair is listed in `rounds`, `duplicates` counts all rounds.
 * Last line: {"bench":"engine-pg","instances":3,"endToEndPerSec":…,"graphileWorkerPerSec":…,"ratio":…,"duplicates":0,…}
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { makeWorkerUtils, runMigrations } from 'graphile-worker';
import { createEngine } from '../server/src/engine/Engine.js';
import { createPostgresEngineStore } from '../server/src/storage/postgres/createPostgresEngineStore.js';
import { openPostgresStorage } from '../server/src/storage/postgres/openPostgresStorage.js';
import { withBenchDatabase } from './benchDatabase.js';

const TASKS = Number(process.env['BENCH_TASKS'] ?? 20_000);
const GW_BATCH = Number(process.env['BENCH_GW_BATCH'] ?? 500);
const CPU_PROF = process.env['BENCH_CPU_PROF'];
// BENCH_GW_ADDJOB=0 skips graphile-worker's single-addJob runs (slower than its addJobs batches in every run so far).
const GW_ADDJOB = process.env['BENCH_GW_ADDJOB'] !== '0';
const ADMIN = process.env['BENCH_PG'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const INSTANCE = fileURLToPath(new URL('./engine-pg-instance.ts', import.meta.url));
// BENCH_ONLY=svc | graphile: run only one side (profiling; no ratio is printed then).
const ONLY = process.env['BENCH_ONLY'];
const TICK = 100; // USER_HZ: /proc CPU times are in 1/100 s

/** CPU seconds the whole machine spent busy so far (all cores, /proc/stat). */
function machineBusySeconds(): number {
  const [, ...f] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  const n = f.map(Number);
  return (n.reduce((a, b) => a + b, 0) - (n[3] ?? 0) - (n[4] ?? 0)) / TICK;
}

/** CPU seconds (user + system) a process has used so far; 0 once it is gone. */
function processSeconds(pid: number | undefined): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(f[11]) + Number(f[12])) / TICK;
  } catch {
    return 0;
  }
}

/**
 * Where the CPU of a scenario went: worker processes, the bench process, the PostgreSQL backends
 * serving the scenario's database (per process, so true on a loaded machine too), and the rest of
 * the machine (the WAL writer and checkpointer, and on a loaded machine everything else running).
 */
interface CpuSplit {
  workers: number;
  bench: number;
  backends: number;
  rest: number;
}

/** Ids of the backend processes connected to the scenario's database now. */
type BackendPids = () => Promise<number[]>;

async function cpuMeter(children: ChildProcess[], backendPids: BackendPids): Promise<{ stop(): Promise<CpuSplit> }> {
  const sumWorkers = () => children.reduce((a, c) => a + processSeconds(c.pid), 0);
  const backends0 = new Map((await backendPids()).map((pid) => [pid, processSeconds(pid)]));
  const workers0 = sumWorkers();
  const busy0 = machineBusySeconds();
  const own0 = process.cpuUsage();
  return {
    async stop() {
      const workers = sumWorkers() - workers0;
      const own = process.cpuUsage(own0);
      const bench = (own.user + own.system) / 1e6;
      const busy = machineBusySeconds() - busy0;
      // Backends that connected meanwhile count from zero; one that closed meanwhile is missed (pools keep theirs open during a run).
      let backends = 0;
      for (const pid of await backendPids()) backends += processSeconds(pid) - (backends0.get(pid) ?? 0);
      return { workers, bench, backends, rest: Math.max(0, busy - workers - bench - backends) };
    },
  };
}

const perThousand = (seconds: number, tasks: number) => Math.round((seconds * 1e6) / tasks);
const cpuLine = (c: CpuSplit, tasks: number) =>
  `  CPU ms per 1000 tasks: workers ${perThousand(c.workers, tasks)}, PostgreSQL backends ${perThousand(c.backends, tasks)}, bench process ${perThousand(c.bench, tasks)}; rest of the machine ${perThousand(c.rest, tasks)}`;
const pidsQuery = `SELECT pid FROM pg_stat_activity WHERE datname = current_database()`;

const withDatabase = <T>(work: (url: string) => Promise<T>): Promise<T> => withBenchDatabase(ADMIN, 'svc_bench', work);

function startWorker(kind: 'svc' | 'graphile', url: string): Promise<ChildProcess> {
  // BENCH_CPU_PROF=<dir>: each worker process writes a V8 CPU profile there when it stops.
  const profile = CPU_PROF === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF}`];
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', INSTANCE, kind, url], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      if (d.toString().includes('ready')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`${kind} worker exited ${code}`)));
  });
}

async function stopWorkers(children: ChildProcess[]): Promise<void> {
  await Promise.all(children.map((c) => new Promise((r) => { c.once('exit', r); c.kill('SIGTERM'); })));
}

async function waitUntil(read: () => Promise<boolean>): Promise<void> {
  while (!(await read())) await new Promise((r) => setTimeout(r, 20));
}

/** Svc Monitor: the parent dispatches through its own engine (no handlers); workers run the tasks. */
async function svcRun(instances: number): Promise<{ endToEndPerSec: number; duplicates: number; cpu: CpuSplit; addsSeconds: number; seconds: number }> {
  return withDatabase(async (url) => {
    const storage = await openPostgresStorage({ connectionString: url, poolSize: 4 });
    const store = createPostgresEngineStore(storage);
    // Dispatches only: its handler is registered (dispatch checks the type) but it never starts, so it runs nothing.
    const dispatcher = createEngine({ store, auditLevel: 'Full', pollIntervalMs: 60_000, onError: () => undefined });
    dispatcher.handle('Bench.NoOp', () => undefined);
    const workers = await Promise.all(Array.from({ length: instances }, () => startWorker('svc', url)));
    // Rows not yet Completed (as graphile-worker's side counts the jobs left): a short index range, not every finished row.
    const remaining = async () =>
      (await storage.query<{ n: number }>(`SELECT COUNT(*) AS n FROM tasks WHERE status IN ('Pending', 'WaitingQueue', 'Queued', 'InProgress', 'ServiceStopped')`)).rows[0]!.n;
    const meter = await cpuMeter(workers, async () => (await storage.query<{ pid: number }>(pidsQuery)).rows.map((r) => r.pid));
    const t0 = performance.now();
    await Promise.all(Array.from({ length: TASKS }, (_, i) => dispatcher.dispatch('Bench.NoOp', { i })));
    const addsSeconds = (performance.now() - t0) / 1000;
    await waitUntil(async () => (await remaining()) === 0);
    const seconds = (performance.now() - t0) / 1000;
    const cpu = await meter.stop();
    await stopWorkers(workers);
    const { rows } = await storage.query<{ starts: number; audits: number; runs: number }>(
      `SELECT (SELECT COUNT(*) FROM status_audit WHERE new_status = 'InProgress') AS starts, (SELECT COUNT(*) FROM status_audit) AS audits,
              (SELECT COALESCE(SUM(run_count), 0) FROM tasks) AS runs`,
    );
    await store.dispose();
    await storage.close();
    const r = rows[0]!;
    if (r.audits !== TASKS * 3) throw new Error(`audit rows ${r.audits}, expected ${TASKS * 3}`);
    return { endToEndPerSec: TASKS / seconds, duplicates: r.starts - TASKS + (r.runs - TASKS), cpu, addsSeconds, seconds };
  });
}

/** graphile-worker: the parent adds jobs (single addJob calls or addJobs batches, all in flight); runner processes run them. */
async function graphileRun(instances: number, adds: 'single' | 'batched'): Promise<{ perSec: number; cpu: CpuSplit }> {
  return withDatabase(async (url) => {
    const pool = new pg.Pool({ connectionString: url, max: 10 });
    pool.on('error', () => undefined);
    await runMigrations({ pgPool: pool });
    const utils = await makeWorkerUtils({ pgPool: pool });
    const workers = await Promise.all(Array.from({ length: instances }, () => startWorker('graphile', url)));
    const remaining = async () => Number((await pool.query(`SELECT COUNT(*) AS n FROM graphile_worker._private_jobs`)).rows[0].n);
    const meter = await cpuMeter(workers, async () => (await pool.query<{ pid: number }>(pidsQuery)).rows.map((r) => r.pid));
    const t0 = performance.now();
    if (adds === 'single') await Promise.all(Array.from({ length: TASKS }, (_, i) => utils.addJob('noop', { i })));
    else {
      const batches = Array.from({ length: Math.ceil(TASKS / GW_BATCH) }, (_, b) =>
        Array.from({ length: Math.min(GW_BATCH, TASKS - b * GW_BATCH) }, (_, k) => ({ identifier: 'noop', payload: { i: b * GW_BATCH + k } })),
      );
      await Promise.all(batches.map((jobs) => utils.addJobs(jobs)));
    }
    await waitUntil(async () => (await remaining()) === 0);
    const seconds = (performance.now() - t0) / 1000;
    const cpu = await meter.stop();
    await stopWorkers(workers);
    await utils.release();
    await pool.end();
    return { perSec: TASKS / seconds, cpu };
  });
}

const round = (n: number) => Math.round(n);
const report = (scenario: string, perSec: number) =>
  console.log(`${scenario.padEnd(44)} ${String(round(perSec)).padStart(7)} tasks/s end to end (${TASKS} no-op tasks, concurrency 4 each)`);
const load = () => (os.loadavg()[0] ?? 0).toFixed(2);
const skipped = { perSec: 0, cpu: { workers: 0, bench: 0, backends: 0, rest: 0 } };
const svcSkipped = { endToEndPerSec: 0, duplicates: 0, cpu: skipped.cpu, addsSeconds: 0, seconds: 0 };
const svcScenario = async (n: number) => {
  if (ONLY === 'graphile') return svcSkipped;
  const r = await svcRun(n);
  report(`svc-monitor, ${n} instance${n === 1 ? '' : 's'}`, r.endToEndPerSec);
  console.log(`  every add acknowledged after ${r.addsSeconds.toFixed(2)} s, the last task finished after ${r.seconds.toFixed(2)} s`);
  console.log(cpuLine(r.cpu, TASKS));
  return r;
};
const gwScenario = async (n: number, adds: 'single' | 'batched') => {
  if (ONLY === 'svc' || (adds === 'single' && !GW_ADDJOB)) return 0;
  const r = await graphileRun(n, adds);
  report(`graphile-worker 0.18, ${n} runner${n === 1 ? '' : 's'}, ${adds === 'single' ? 'addJob' : `addJobs×${GW_BATCH}`}`, r.perSec);
  console.log(cpuLine(r.cpu, TASKS));
  return r.perSec;
};
interface Round {
  svc1: number;
  svc3: number;
  /** The fastest graphile-worker figure of the round. */
  graphile: number;
  ratio: number | null;
  duplicates: number;
  addJob: number | null;
  addJobs: number;
  oneRunner: number;
  loadAverage: string;
}

/** One round: Svc Monitor and graphile-worker alternate, 1 then 3 instances; graphile's single addJob runs only when asked (`withAddJob`). */
async function benchRound(withAddJob: boolean): Promise<Round> {
  const svc1 = await svcScenario(1);
  const gw1 = withAddJob ? await gwScenario(1, 'single') : 0;
  const gw1b = await gwScenario(1, 'batched');
  const svc3 = await svcScenario(3);
  const gw3 = withAddJob ? await gwScenario(3, 'single') : 0;
  const gw3b = await gwScenario(3, 'batched');
  const graphile = Math.max(gw1, gw3, gw1b, gw3b);
  return {
    svc1: svc1.endToEndPerSec,
    svc3: svc3.endToEndPerSec,
    graphile,
    ratio: graphile === 0 || ONLY !== undefined ? null : svc3.endToEndPerSec / graphile,
    duplicates: svc1.duplicates + svc3.duplicates,
    addJob: withAddJob ? Math.max(gw1, gw3) : null,
    addJobs: Math.max(gw1b, gw3b),
    oneRunner: Math.max(gw1, gw1b),
    loadAverage: load(),
  };
}

// BENCH_ROUNDS rounds (default 3); graphile-worker's single-addJob runs (always its slower way so far) in the first round only.
const ROUNDS = Math.max(1, Number(process.env['BENCH_ROUNDS'] ?? 3));
const rounds: Round[] = [];
for (let r = 0; r < ROUNDS; r++) {
  if (ROUNDS > 1) console.log(`round ${r + 1} of ${ROUNDS}`);
  rounds.push(await benchRound(GW_ADDJOB && r === 0));
}
/** The round whose ratio is the median (the middle one of the sorted rounds). */
const median = [...rounds].sort((x, y) => (x.ratio ?? x.svc3) - (y.ratio ?? y.svc3))[Math.floor((rounds.length - 1) / 2)]!;
const r2 = (n: number | null) => (n === null ? null : Math.round(n * 100) / 100);
console.log(
  JSON.stringify({
    bench: 'engine-pg',
    instances: 3,
    endToEndPerSec: round(median.svc3),
    graphileWorkerPerSec: round(median.graphile),
    ratio: r2(median.ratio),
    duplicates: rounds.reduce((a, r) => a + r.duplicates, 0),
    oneInstancePerSec: round(median.svc1),
    graphileWorkerAddJobPerSec: rounds[0]!.addJob === null ? null : round(rounds[0]!.addJob),
    graphileWorkerAddJobsPerSec: round(median.addJobs),
    graphileWorkerOneRunnerPerSec: round(median.oneRunner),
    rounds: rounds.map((r) => ({ svc3: round(r.svc3), svc1: round(r.svc1), graphile: round(r.graphile), ratio: r2(r.ratio), load: r.loadAverage })),
    loadAverage: load(),
  }),
);
