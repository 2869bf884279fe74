// The monitoring reads during a catch-up backlog (bench:schedules, both backends): the dashboard's task
// list (default, every status filter it offers, every sort both ways, first and last page), the
// counts and the overview, each read as its own macrotask (as an HTTP request is), with the event
// loop's delay recorded throughout (perf_hooks monitorEventLoopDelay): a read that blocks the loop
// shows there as it would delay every other request, the hub and the engine's commits.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { TaskSortField, TaskStatus } from '../server/src/contracts/index.js';
import type { TaskListQuery } from '../server/src/storage/MonitoringStore.js';
import { createMonitoringStore } from '../server/src/storage/common/reads/createMonitoringStore.js';
import type { ReadDb } from '../server/src/storage/common/reads/ReadDb.js';

const SORTS: TaskSortField[] = ['CreatedAtUtc', 'LastExecutionUtc', 'ScheduledExecutionUtc', 'StartedAtUtc', 'Status', 'Type', 'QueueName', 'ExecutionTimeMs'];
const STATUSES: TaskStatus[] = ['Pending', 'Queued', 'InProgress', 'Completed', 'Failed', 'Cancelled'];
const DEFAULT: TaskListQuery = { sortBy: 'CreatedAtUtc', sortDescending: true, page: 1, pageSize: 20 };

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
}

const p99 = (samples: number[]) => [...samples].sort((a, b) => a - b)[Math.min(samples.length - 1, Math.ceil(samples.length * 0.99) - 1)]!;
const nextMacrotask = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Runs each read `rounds` times (after one warm-up round) over `db` as it is now; `nowMs` is the dashboard's clock. */
export async function measureBacklogReads(db: ReadDb, nowMs: number, rounds: number): Promise<BacklogReads> {
  const store = createMonitoringStore(db);
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
  reads.set('page 2', () => store.listTasks({ ...DEFAULT, page: 2 }));
  reads.set('page 50', () => store.listTasks({ ...DEFAULT, page: 50 }));
  reads.set('counts', () => store.counts());
  reads.set('overview Today', () => store.overview('Today', nowMs));
  reads.set('overview All', () => store.overview('All', nowMs));
  const samples = new Map<string, number[]>([...reads.keys()].map((k) => [k, []]));
  for (const read of reads.values()) await read();
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
    listP99Ms: round1(p99(samples.get('default list')!)),
    pendingListP99Ms: round1(p99(samples.get('Pending')!)),
    worstP99Ms: round1(worstP99Ms),
    worst,
    eventLoopMaxMs: round1(loop.max / 1e6),
  };
}
