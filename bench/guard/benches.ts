// The benches that `npm run bench:all` runs in one sitting, in this order, and the figures of
// each bench's last JSON line that `npm run bench:compare` and `npm run bench:readme` read.

/** How a figure is judged against the previous line of the same bench. */
export type FigureKind =
  /** A ratio to a peer or floor measured in the same run: the machine's speed cancels out. */
  | 'ratio'
  /** An absolute figure: moves with the machine's load as much as with the code (noisy). */
  | 'absolute'
  /** A count that must stay 0 (lost events, duplicate runs): any other value is a failure. */
  | 'zero';

export interface Figure {
  /** Key in the bench's JSON line. */
  key: string;
  label: string;
  unit: string;
  better: 'higher' | 'lower';
  kind: FigureKind;
}

export interface BenchEntry {
  /** Key of the bench's lines in the history file. */
  name: string;
  /** Script under bench/. */
  script: string;
  args?: string[];
  env?: Record<string, string>;
  /** Small sizes for `--quick`: proves the pipeline, measures nothing worth keeping. */
  quickEnv: Record<string, string>;
  quickArgs?: string[];
  figures: Figure[];
  /** One line for the README's generated block: what the bench does. */
  describe: string;
}

const lower = (key: string, label: string, unit: string, kind: FigureKind = 'absolute'): Figure => ({ key, label, unit, better: 'lower', kind });
const higher = (key: string, label: string, unit: string, kind: FigureKind = 'absolute'): Figure => ({ key, label, unit, better: 'higher', kind });
const zero = (key: string, label: string): Figure => ({ key, label, unit: '', better: 'lower', kind: 'zero' });

const apiFigures: Figure[] = [
  lower('tasksP99Ms', '/tasks p99 (worst variant)', 'ms'),
  lower('countsP99Ms', '/tasks/counts p99', 'ms'),
  lower('overviewAllP99Ms', 'overview All p99', 'ms'),
  lower('detailP99Ms', 'detail p99', 'ms'),
  lower('requestSearchP99Ms', 'requestSearch p99', 'ms'),
  lower('seedS', 'seeding', 's'),
  lower('metricsScrapeP99Ms', 'metrics scrape p99', 'ms'),
];
// The scrape of GET /svc-monitoring/metrics is measured too (BENCH_API_METRICS).
const apiEnv = { BENCH_API_METRICS: '1' };
// 20,000 rows: the fewest at which every list variant finds rows (the search for "order-12" among them).
const apiQuick = { BENCH_API_ROWS: '20000', BENCH_API_SECONDS: '0.2' };

export const BENCHES: BenchEntry[] = [
  {
    name: 'engine',
    script: 'engine.ts',
    // Each round adds a run with the monitoring's metrics and a tracer provider on.
    env: { BENCH_OBSERVABILITY: '1' },
    quickEnv: { BENCH_TASKS: '300', BENCH_ROUNDS: '1', BENCH_LONE_SAMPLES: '50' },
    figures: [
      higher('ratioVsBullmq', 'end to end / BullMQ', '×', 'ratio'),
      higher('ratioObservedVsBullmq', 'with metrics and tracing / BullMQ', '×', 'ratio'),
      higher('observedVsPlain', 'metrics and tracing on / off', '×', 'ratio'),
      higher('endToEndPerSec', 'end to end (audit Full)', 'tasks/s'),
      higher('bullmqPerSec', 'BullMQ peer', 'jobs/s'),
      lower('loneDispatchToStartedP99Ms', 'lone task dispatch → Started p99', 'ms'),
    ],
    describe: '20,000 no-op tasks, concurrency 4, file DB; BullMQ on the local Redis in alternating rounds; each round also runs with metrics and tracing on',
  },
  {
    name: 'engine-pg',
    script: 'engine-pg.ts',
    quickEnv: { BENCH_TASKS: '300', BENCH_ROUNDS: '1', BENCH_GW_ADDJOB: '0' },
    figures: [
      higher('ratio', '3 instances / graphile-worker', '×', 'ratio'),
      higher('endToEndPerSec', '3 instances end to end', 'tasks/s'),
      higher('graphileWorkerPerSec', 'graphile-worker peer', 'jobs/s'),
      zero('duplicates', 'duplicate runs'),
    ],
    describe: '20,000 no-op tasks on PostgreSQL, 1 and 3 instances; graphile-worker in alternating rounds',
  },
  {
    name: 'api-sqlite',
    script: 'api.ts',
    args: ['--storage', 'sqlite'],
    env: apiEnv,
    quickEnv: apiQuick,
    figures: apiFigures,
    describe: 'monitoring API over 1,000,000 tasks (SQLite), p99 over loopback',
  },
  {
    name: 'api-postgres',
    script: 'api.ts',
    args: ['--storage', 'postgres'],
    env: apiEnv,
    quickEnv: apiQuick,
    figures: apiFigures,
    describe: 'monitoring API over 1,000,000 tasks (PostgreSQL), p99 over loopback',
  },
  {
    name: 'schedules',
    script: 'schedules.ts',
    quickEnv: { BENCH_SCHEDULES: '3' },
    figures: [
      // Present once the bench measures its floor (the same rows inserted by hand): catch-up / floor.
      lower('ratio', 'catch-up / hand-inserted floor', '×', 'ratio'),
      lower('catchUpMs', 'catch-up of 1,000 schedules × 24 h', 'ms'),
      lower('boundCountMs', 'counting bound', 'ms'),
    ],
    describe: '1,000 minute schedules after 24 h down: catch-up time',
  },
  {
    name: 'schedules-pg',
    script: 'schedules.ts',
    args: ['--storage', 'postgres'],
    // 200 schedules (288,000 occurrences per catch-up, 1.5 min for both catch-ups); the figures are scaled to 1,000.
    env: { BENCH_SCHEDULES: '200' },
    quickEnv: { BENCH_SCHEDULES: '3' },
    figures: [
      lower('catchUpScaledMs', 'catch-up, one instance (scaled to 1,000 schedules)', 'ms'),
      lower('twoInstancesScaledMs', 'catch-up, two instances at once (scaled)', 'ms'),
      zero('duplicates', 'duplicate slots'),
    ],
    describe: 'the same catch-up on PostgreSQL (200 schedules, scaled to 1,000): one instance, then two materializing at once',
  },
  {
    name: 'hub',
    script: 'hub.ts',
    quickEnv: { BENCH_HUB_CLIENTS: '40', BENCH_HUB_SECONDS: '1', BENCH_HUB_EVENTS_PER_SEC: '200', BENCH_HUB_ROUNDS: '1' },
    figures: [
      lower('ratio', 'p99 / bare ws floor', '×', 'ratio'),
      lower('p99Ms', 'p99 emit → receipt', 'ms'),
      lower('floorP99Ms', 'bare ws floor p99', 'ms'),
      zero('lost', 'lost deliveries'),
      lower('rssMb', 'server RSS', 'MB'),
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
      lower('ratio', 'p99 / bare ws floor', '×', 'ratio'),
      lower('p99Ms', 'p99 emit → receipt', 'ms'),
      zero('lost', 'lost deliveries'),
      lower('rssMb', 'server RSS', 'MB'),
    ],
    describe: '5,000 connections (1,000 receiving every event, 4,000 idle with keep-alive) at 1,000 events/s',
  },
  {
    name: 'bulk',
    script: 'bulk.ts',
    quickEnv: { BENCH_BULK_ROWS: '300', BENCH_BULK_BASELINE_SECONDS: '1' },
    figures: [
      lower('ms', 'bulk retry of 100,000 rows', 'ms'),
      lower('apiP99DuringMs', 'API p99 during the bulk', 'ms'),
      lower('apiP99BeforeMs', 'API p99 before (baseline)', 'ms'),
    ],
    describe: 'bulk retry of 100,000 Failed tasks with the engine running',
  },
  {
    name: 'stall',
    script: 'stall.ts',
    quickEnv: { BENCH_TASKS: '30', BENCH_LOCK_MS: '1000' },
    figures: [lower('configMaxMs', '/config max during a 20 s lock', 'ms'), lower('configP99Ms', '/config p99 during the lock', 'ms'), zero('lost', 'lost rows'), zero('duplicates', 'duplicate runs')],
    describe: 'another process holds the database 20 s while 1,000 tasks run',
  },
];

export function benchNamed(name: string): BenchEntry | undefined {
  return BENCHES.find((b) => b.name === name);
}
