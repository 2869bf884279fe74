// The monitoring reads during a catch-up backlog (bench:schedules, both backends): the dashboard's task
// list (default, every status filter it offers, every sort both ways, first, middle and last page; a
// small and a large queue and type, each as a filter with every sort), the counts and the overview,
// each read as its own macrotask (as an HTTP request is), with the event
// loop's delay recorded throughout (perf_hooks monitorEventLoopDelay): a read that blocks the loop
// shows there as it would delay every other request, the hub and the engine's commits.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { TaskSortField, TaskStatus } from '../server/src/contracts/index.js';
import type { MonitoringStore, TaskListQuery } from '../server/src/storage/MonitoringStore.js';
import { createMonitoringStore } from '../server/src/storage/common/reads/createMonitoringStore.js';
import type { ReadDb } from '../server/src/storage/common/reads/ReadDb.js';

const SORTS: TaskSortField[] = ['CreatedAtUtc', 'LastExecutionUtc', 'ScheduledExecutionUtc', 'StartedAtUtc', 'Status', 'Type', 'QueueName', 'ExecutionTimeMs'];
const STATUSES: TaskStatus[] = ['Pending', 'Queued', 'InProgress', 'Completed', 'Failed', 'Cancelled'];
const DEFAULT: TaskListQuery = { sortBy: 'CreatedAtUtc', sortDescending: true, page: 1, pageSize: 20 };

/**
 * The bench's schedule `i` of a catch-up: its type and queue. Two small groups (the first 11
 * schedules, written first, so a catch-up writes their rows before every other's) sort first when
 * read newest first by type or queue ('Bench.Rare', 'rare'); one schedule in seven is a larger
 * group ('Bench.Batch', 'batch'), sorting last; the rest are 'Bench.EveryMinute' in the default queue.
 */
export function backlogScheduleShape(i: number): { type: string; queue?: string } {
  if (i < 11) return { type: 'Bench.Rare', queue: 'rare' };
  if (i % 7 === 3) return { type: 'Bench.Batch', queue: 'batch' };
  return { type: 'Bench.EveryMinute' };
}

/** The filters on a schedule's column the bench reads with every sort (newest first). */
const GROUP_FILTERS: [string, Partial<TaskListQuery>][] = [
  ['queue rare', { queueName: 'rare' }],
  ['queue batch', { queueName: 'batch' }],
  ['type Rare', { taskType: 'Bench.Rare' }],
  ['type Batch', { taskType: 'Bench.Batch' }],
];

export interface BacklogReads {
  /** p99 of the default list (newest first, 20 rows), ms. */
  listP99Ms: number;
  /** p99 of the Pending filter (newest first), ms. */
  pendingListP99Ms: number;
  /** The worst p99 among every other variant (filters, sorts, pages, counts, overview), ms, and its name. */
  worstP99Ms: number;
  worst: string;
  /** The event loop's longest delay while the reads ran, ms. */
  eventLoopMaxMs: number;
  /** Each variant's p99, ms, in the order read. */
  p99ByVariant: Record<string, number>;
  /** The variants whose read threw, with the error (left out of the figures above). */
  failed: Record<string, string>;
}

/** The variants' p99s as lines of `name p99` (for the bench's output). */
export function formatBacklogReads(reads: BacklogReads): string {
  const lines = Object.entries(reads.p99ByVariant).map(([name, ms]) => `  ${name.padEnd(40)} p99 ${ms} ms`);
  for (const [name, error] of Object.entries(reads.failed)) lines.push(`  ${name.padEnd(40)} FAILED: ${error}`);
  return lines.join('\n');
}

const p99 = (samples: number[]) => [...samples].sort((a, b) => a - b)[Math.min(samples.length - 1, Math.ceil(samples.length * 0.99) - 1)]!;
const nextMacrotask = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The bench's reads over `store` (a monitoring store as `createMonitoringStore` makes it), by name, in the order read; `nowMs` is the dashboard's clock. */
export async function backlogReadVariants(store: MonitoringStore, nowMs: number): Promise<Map<string, () => Promise<unknown>>> {
  const reads = new Map<string, () => Promise<unknown>>();
  reads.set('default list', () => store.listTasks(DEFAULT));
  reads.set('Pending', () => store.listTasks({ ...DEFAULT, statuses: ['Pending'] }));
  for (const s of STATUSES.slice(1)) reads.set(s, () => store.listTasks({ ...DEFAULT, statuses: [s] }));
  reads.set('Pending+Queued by status', () => store.listTasks({ ...DEFAULT, statuses: ['Pending', 'Queued'], sortBy: 'Status' }));
  for (const sortBy of SORTS) {
    for (const sortDescending of [true, false]) {
      const q = { ...DEFAULT, sortBy, sortDescending };
      reads.set(`${sortBy} ${sortDescending ? 'desc' : 'asc'}`, () => store.listTasks(q));
      reads.set(`Pending ${sortBy} ${sortDescending ? 'desc' : 'asc'}`, () => store.listTasks({ ...q, statuses: ['Pending'] }));
    }
  }
  for (const [name, filter] of GROUP_FILTERS) {
    for (const sortBy of SORTS) reads.set(`${name} ${sortBy} desc`, () => store.listTasks({ ...DEFAULT, ...filter, sortBy }));
    reads.set(`${name} CreatedAtUtc asc`, () => store.listTasks({ ...DEFAULT, ...filter, sortDescending: false }));
  }
  reads.set('page 2', () => store.listTasks({ ...DEFAULT, page: 2 }));
  reads.set('page 50', () => store.listTasks({ ...DEFAULT, page: 50 }));
  // The middle of the list (page 36,000 of 72,000 at 1.44 M rows): as far from either end as a page can be.
  const middle = Math.max(1, Math.ceil((await store.listTasks(DEFAULT)).totalPages / 2));
  reads.set('middle page', () => store.listTasks({ ...DEFAULT, page: middle }));
  reads.set('Pending middle page', () => store.listTasks({ ...DEFAULT, statuses: ['Pending'], page: middle }));
  reads.set('Type desc middle page', () => store.listTasks({ ...DEFAULT, sortBy: 'Type', page: middle }));
  const batchMiddle = Math.max(1, Math.ceil((await store.listTasks({ ...DEFAULT, queueName: 'batch' })).totalPages / 2));
  reads.set('queue batch middle page', () => store.listTasks({ ...DEFAULT, queueName: 'batch', page: batchMiddle }));
  reads.set('counts', () => store.counts());
  reads.set('overview Today', () => store.overview('Today', nowMs));
  reads.set('overview All', () => store.overview('All', nowMs));
  return reads;
}

/** Runs each read `rounds` times (after one warm-up round) over `db` as it is now; `nowMs` is the dashboard's clock. */
export async function measureBacklogReads(db: ReadDb, nowMs: number, rounds: number): Promise<BacklogReads> {
  const reads = await backlogReadVariants(createMonitoringStore(db), nowMs);
  const samples = new Map<string, number[]>([...reads.keys()].map((k) => [k, []]));
  const failed: Record<string, string> = {};
  for (const [name, read] of reads) {
    try {
      await read();
    } catch (e) {
      failed[name] = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
      reads.delete(name);
      samples.delete(name);
    }
  }
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  for (let round = 0; round < rounds; round++) {
    for (const [name, read] of reads) {
      await nextMacrotask();
      const t = performance.now();
      await read();
      samples.get(name)!.push(performance.now() - t);
    }
  }
  await nextMacrotask();
  loop.disable();
  const [worst, worstP99Ms] = [...samples].filter(([k]) => k !== 'default list' && k !== 'Pending').map(([k, v]) => [k, p99(v)] as const).sort((a, b) => b[1] - a[1])[0]!;
  const round1 = (ms: number) => Math.round(ms * 10) / 10;
  return {
    failed,
    p99ByVariant: Object.fromEntries([...samples].map(([k, v]) => [k, round1(p99(v))])),
    listP99Ms: round1(p99(samples.get('default list')!)),
    pendingListP99Ms: round1(p99(samples.get('Pending')!)),
    worstP99Ms: round1(worstP99Ms),
    worst,
    eventLoopMaxMs: round1(loop.max / 1e6),
  };
}
