// The benches of `npm run bench:all`, in the order it runs them, and the figures of each bench's
// last JSON line that `npm run bench:compare` and `npm run bench:readme` read, with their targets.
// An opt-in entry (`optional`) is left out of a plain sitting and runs only when `--only` names it.

import { atLeast, atMost, below, higher, lower, zero, type Figure } from './figures.js';

interface BenchBase {
  /** Key of the bench's lines in the history file. */
  name: string;
  args?: string[];
  /** Set over the parent's environment (which passes through, e.g. BENCH_API_FILE). */
  env?: Record<string, string>;
  /** Small sizes for `--quick`: proves the pipeline, measures nothing worth keeping. */
  quickEnv: Record<string, string>;
  quickArgs?: string[];
  figures: Figure[];
  /** One line for the README's generated table: what the bench does. */
  describe: string;
  /** Not in a plain `bench:all`: runs only when `--only` names it (too long for every sitting). */
  optional?: true;
}

/** What runs: a script under bench/ (through tsx), or an npm script of package.json. */
export type BenchEntry = BenchBase & ({ script: string; npmScript?: never } | { npmScript: string; script?: never });

/** The API's p99 targets, the same at every size and on both backends; seeding's, where one is stated, per size and backend. */
function apiFigures(seedTargetS?: number): Figure[] {
  return [
    lower('tasksP99Ms', '/tasks p99 (worst variant)', 'ms', 'absolute', below(25)),
    lower('countsP99Ms', '/tasks/counts p99', 'ms', 'absolute', below(25)),
    lower('overviewAllP99Ms', 'overview All p99', 'ms', 'absolute', below(100)),
    lower('detailP99Ms', 'detail p99', 'ms', 'absolute', below(10)),
    lower('requestSearchP99Ms', 'requestSearch p99', 'ms', 'absolute', below(50)),
    // null (not shown) when the run measured a kept database (BENCH_API_FILE, BENCH_API_PG_DB).
    lower('seedS', 'seeding', 's', 'absolute', seedTargetS === undefined ? undefined : below(seedTargetS)),
    lower('metricsScrapeP99Ms', 'metrics scrape p99', 'ms', 'absolute', below(50)),
    // Issue 42: no read holds the serving process's event loop more than 50 ms.
    lower('eventLoopMaxMs', 'event-loop delay max during the reads', 'ms', 'absolute', below(50)),
  ];
}
// The scrape of GET /svc-monitoring/metrics is measured too (BENCH_API_METRICS).
const apiEnv = { BENCH_API_METRICS: '1' };
const apiEnv10m = { ...apiEnv, BENCH_API_ROWS: '10000000' };
// 20,000 rows: the fewest at which every list variant finds rows (the search for "order-12" among them).
const apiQuick = { BENCH_API_ROWS: '20000', BENCH_API_SECONDS: '0.2' };

/**
 * `bench:api` on one backend: `api-<storage>` over 1 M rows in every sitting; over 10 M rows
 * (`api-<storage>-10m`) opt-in, with its seeding target and how a kept database is measured again.
 */
function apiBench(storage: 'sqlite' | 'postgres', tenMillion?: { seedingTargetS: number; reuse: string }): BenchEntry {
  const rows = tenMillion ? '10,000,000' : '1,000,000';
  const backend = storage === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  return {
    name: `api-${storage}${tenMillion ? '-10m' : ''}`,
    script: 'api.ts',
    args: ['--storage', storage],
    env: tenMillion ? apiEnv10m : apiEnv,
    quickEnv: apiQuick,
    figures: apiFigures(tenMillion?.seedingTargetS),
    describe: tenMillion
      ? `monitoring API over ${rows} tasks (${backend}); ${tenMillion.reuse}`
      : `monitoring API over ${rows} tasks (${backend}), p99 over loopback`,
    ...(tenMillion ? { optional: true } : {}),
  };
}

export const BENCHES: BenchEntry[] = [
  {
    name: 'engine',
    script: 'engine.ts',
    // Each round adds a run with the monitoring's metrics and a tracer provider on, and one with the tracer provider alone.
    env: { BENCH_OBSERVABILITY: '1' },
    quickEnv: { BENCH_TASKS: '300', BENCH_ROUNDS: '1', BENCH_LONE_SAMPLES: '50' },
    figures: [
      higher('ratioVsBullmq', 'end to end / BullMQ', '×', 'ratio', atLeast(1.5)),
      higher('ratioObservedVsBullmq', 'with metrics and tracing / BullMQ', '×', 'ratio'),
      higher('observedVsPlain', 'metrics and tracing on / off', '×', 'ratio'),
      // Issue 43: with tracing on, the engine keeps at least 0.9 of its plain throughput.
      higher('tracedVsPlain', 'tracing alone on / off', '×', 'ratio', atLeast(0.9)),
      higher('endToEndPerSec', 'end to end (audit Full)', 'tasks/s'),
      higher('endToEndErrorsOnlyPerSec', 'end to end (audit ErrorsOnly)', 'tasks/s'),
      higher('endToEndNonePerSec', 'end to end (audit None)', 'tasks/s'),
      higher('bullmqPerSec', 'BullMQ peer', 'jobs/s'),
      lower('loneDispatchToStartedP99Ms', 'lone task dispatch → Started p99', 'ms', 'absolute', below(5)),
    ],
    describe: '20,000 no-op tasks, concurrency 4, file DB; BullMQ on the local Redis in alternating rounds; each round also runs with metrics and tracing on, and with tracing alone',
  },
  {
    name: 'engine-pg',
    script: 'engine-pg.ts',
    quickEnv: { BENCH_TASKS: '300', BENCH_ROUNDS: '1', BENCH_GW_ADDJOB: '0' },
    figures: [
      higher('ratio', '3 instances / graphile-worker', '×', 'ratio', atLeast(1.5)),
      higher('endToEndPerSec', '3 instances end to end', 'tasks/s'),
      higher('graphileWorkerPerSec', 'graphile-worker peer', 'jobs/s'),
      zero('duplicates', 'duplicate runs'),
    ],
    describe: '20,000 no-op tasks on PostgreSQL, 1 and 3 instances; graphile-worker in alternating rounds',
  },
  apiBench('sqlite'),
  apiBench('postgres'),
  apiBench('sqlite', { seedingTargetS: 15 * 60, reuse: 'BENCH_API_FILE measures a file kept by BENCH_API_KEEP=1 without seeding' }),
  apiBench('postgres', { seedingTargetS: 20 * 60, reuse: 'BENCH_API_PG_DB measures a database kept by BENCH_API_KEEP=1 without seeding' }),
  {
    name: 'schedules',
    script: 'schedules.ts',
    quickEnv: { BENCH_SCHEDULES: '3' },
    figures: [
      // The floor: the same rows inserted by hand in batches, in the same run (since migration 15
      // the compact rows a catch-up writes; before it, task rows and their audits).
      lower('ratio', 'catch-up / hand-inserted floor', '×', 'ratio'),
      lower('catchUpMs', 'catch-up of 1,000 schedules × 24 h', 'ms', 'absolute', below(15_000)),
      lower('floorMs', 'the same rows inserted by hand (floor)', 'ms'),
      lower('taskRowFloorMs', 'the same occurrences as task rows + audits by hand', 'ms'),
      // The work a compact catch-up leaves for promotion: every row's task row, audit and search row.
      lower('spillMs', 'compact rows turned into task rows (deferred work)', 'ms'),
      lower('boundCountMs', 'counting bound', 'ms', 'absolute', below(1_000)),
      // The dashboard's reads while the 1.44 M compact rows wait (bench/backlogReads.ts).
      lower('listP99Ms', 'task list p99 during the backlog', 'ms', 'absolute', below(50)),
      lower('pendingListP99Ms', 'Pending filter p99 during the backlog', 'ms', 'absolute', below(50)),
      lower('readsWorstP99Ms', 'worst other read p99 during the backlog', 'ms', 'absolute', below(50)),
      lower('eventLoopMaxMs', 'event-loop delay max during the backlog reads', 'ms', 'absolute', below(50)),
    ],
    describe: '1,000 minute schedules after 24 h down: catch-up time (SQLite: compact rows), and the task rows they become when due',
  },
  {
    name: 'schedules-pg',
    script: 'schedules.ts',
    args: ['--storage', 'postgres'],
    // 200 schedules (288,000 occurrences per catch-up; three catch-ups, the floor and the deferred work); the figures are scaled to 1,000.
    env: { BENCH_SCHEDULES: '200' },
    quickEnv: { BENCH_SCHEDULES: '3', BENCH_READ_ROUNDS: '1' },
    figures: [
      // Issue 35 asks the same bench of PostgreSQL, with the same target; since migration 19 it writes compact rows.
      lower('catchUpScaledMs', 'catch-up, one instance (scaled to 1,000 schedules)', 'ms', 'absolute', below(15_000)),
      // The floor: the same compact rows inserted by hand in batches, in the same run.
      lower('ratio', 'catch-up / hand-inserted floor', '×', 'ratio'),
      lower('floorScaledMs', 'the same compact rows inserted by hand (floor, scaled)', 'ms'),
      // CPU of this process and of the database's backends: on a shared machine the wall time is mostly a wait for a core.
      lower('cpuRatio', 'catch-up / floor, CPU of both processes', '×', 'ratio'),
      lower('catchUpCpuScaledMs', 'catch-up CPU, this process + server backends (scaled)', 'ms'),
      lower('taskRowCatchUpScaledMs', 'the same catch-up as task rows (before migration 19, scaled)', 'ms'),
      lower('twoInstancesScaledMs', 'catch-up, two instances at once (scaled)', 'ms', 'absolute', below(15_000)),
      zero('duplicates', 'duplicate slots'),
      lower('spillScaledMs', 'compact rows turned into task rows (deferred work, scaled)', 'ms'),
      lower('listP99Ms', 'task list p99 during the backlog', 'ms', 'absolute', below(50)),
      lower('pendingListP99Ms', 'Pending filter p99 during the backlog', 'ms', 'absolute', below(50)),
      lower('readsWorstP99Ms', 'worst other read p99 during the backlog', 'ms', 'absolute', below(50)),
      lower('eventLoopMaxMs', 'event-loop delay max during the backlog reads', 'ms', 'absolute', below(50)),
    ],
    describe: 'the same catch-up on PostgreSQL (200 schedules, scaled to 1,000; compact rows): one instance with its floor and backlog reads, two at once, and as task rows',
  },
  {
    name: 'hub',
    script: 'hub.ts',
    quickEnv: { BENCH_HUB_CLIENTS: '40', BENCH_HUB_SECONDS: '1', BENCH_HUB_EVENTS_PER_SEC: '200', BENCH_HUB_ROUNDS: '1' },
    figures: [
      lower('ratio', 'p99 / bare ws floor', '×', 'ratio', atMost(1.5)),
      lower('p50Ms', 'p50 emit → receipt', 'ms'),
      lower('p99Ms', 'p99 emit → receipt', 'ms'),
      lower('floorP99Ms', 'bare ws floor p99', 'ms'),
      zero('lost', 'lost deliveries'),
      lower('rssMb', 'server RSS', 'MB', 'absolute', below(300)),
    ],
    describe: '1,000 WebSocket clients at 1,000 events/s; a bare `ws` broadcast in alternating rounds',
  },
  {
    name: 'hub-5000',
    script: 'hub.ts',
    args: ['--clients', '5000'],
    quickEnv: { BENCH_HUB_SECONDS: '1', BENCH_HUB_EVENTS_PER_SEC: '200', BENCH_HUB_ROUNDS: '1' },
    quickArgs: ['--clients', '100'],
    figures: [
      lower('ratio', 'p99 / bare ws floor', '×', 'ratio', atMost(1.5)),
      lower('p99Ms', 'p99 emit → receipt', 'ms'),
      zero('lost', 'lost deliveries'),
      lower('rssMb', 'server RSS', 'MB', 'absolute', below(500)),
    ],
    describe: '5,000 connections (1,000 receiving every event, 4,000 idle with keep-alive) at 1,000 events/s',
  },
  {
    name: 'bulk',
    script: 'bulk.ts',
    quickEnv: { BENCH_BULK_ROWS: '300', BENCH_BULK_BASELINE_SECONDS: '1' },
    figures: [
      lower('ms', 'bulk retry of 100,000 rows', 'ms', 'absolute', below(60_000)),
      lower('apiP99DuringMs', 'API p99 during the bulk', 'ms', 'absolute', below(25)),
      lower('apiP99BeforeMs', 'API p99 before (baseline)', 'ms'),
    ],
    describe: 'bulk retry of 100,000 Failed tasks with the engine running',
  },
  {
    name: 'stall',
    script: 'stall.ts',
    quickEnv: { BENCH_TASKS: '30', BENCH_LOCK_MS: '1000' },
    figures: [lower('configMaxMs', '/config max during a 20 s lock', 'ms', 'absolute', below(100)), lower('configP99Ms', '/config p99 during the lock', 'ms'), zero('lost', 'lost rows'), zero('duplicates', 'duplicate runs')],
    describe: 'another process holds the database 20 s while 1,000 tasks run',
  },
  {
    name: 'web-size',
    npmScript: 'build:web',
    quickEnv: {},
    // The build itself fails over its budget (WEB_GZIP_BUDGET_KB, 400 by default in scripts/report-web-size.mjs).
    figures: [lower('gzipKb', 'web assets, gzip', 'KB', 'absolute', below(400))],
    describe: 'the web dashboard built for production (`build:web`): every asset gzipped at level 9',
    optional: true,
  },
  {
    name: 'suite',
    script: 'suiteCpu.ts',
    quickEnv: {},
    quickArgs: ['test/server/contracts.test.ts'],
    figures: [lower('wallS', '`npm test` wall time', 's', 'absolute', below(180)), lower('machineBusyS', 'machine busy meanwhile', 'CPU-s')],
    describe: '`npm test` (typecheck and every vitest project) with every process of the machine sampled from /proc (`bench:suite`)',
    optional: true,
  },
];

export function benchNamed(name: string): BenchEntry | undefined {
  return BENCHES.find((b) => b.name === name);
}

/** A sitting's benches in list order: all but the opt-in ones, or exactly those `only` names. */
export function sittingOf(only?: string[]): { benches: BenchEntry[]; unknown: string[] } {
  if (only === undefined) return { benches: BENCHES.filter((b) => !b.optional), unknown: [] };
  return { benches: BENCHES.filter((b) => only.includes(b.name)), unknown: only.filter((n) => benchNamed(n) === undefined) };
}
