import { Gauge, type Registry } from 'prom-client';
import type { QueueMetrics } from '../../contracts/index.js';
import type { MonitoringStore, ScheduleStates } from '../../storage/MonitoringStore.js';

const GLOBAL = 'Global: read from the shared store, exported by one instance of a cluster (the alert leader; the others export no sample), so sum() and max() agree.';
/** Scrapes closer together than this share one read of the store. */
const READ_REUSE_MS = 250;

const STATUS_FIELDS = {
  Queued: 'queuedTasks',
  InProgress: 'inProgressTasks',
  Completed: 'completedTasks',
  Failed: 'failedTasks',
  Cancelled: 'cancelledTasks',
} as const satisfies Record<string, keyof QueueMetrics>;

interface ReadModels {
  queues: QueueMetrics[];
  schedules: ScheduleStates;
}

/** Whether this process exports the store's gauges: asked at each scrape (the leader of the cluster's alert rules; always on one process's own store). */
export type GaugeExporter = () => Promise<boolean>;

/**
 * The global gauges: task counts by queue and status, the oldest waiting task of each queue and
 * the schedules by state, read from the store's read models at scrape time (O(groups)). Every
 * instance of a cluster reads the same store, so only the one `exporter` answers yes to gives
 * samples (the families stay declared, empty, on the others): a sum over every instance counts
 * each task once.
 */
export function registerReadModelGauges(registers: Registry[], store: MonitoringStore, now: () => number, exporter: GaugeExporter): void {
  let last: { at: number; read: Promise<ReadModels | undefined> } | undefined;
  const read = (): Promise<ReadModels | undefined> => {
    const at = now();
    if (last === undefined || at - last.at > READ_REUSE_MS) {
      const p = exporter().then(async (exports) => {
        if (!exports) return undefined;
        const [queues, schedules] = await Promise.all([store.queueMetrics(at), store.scheduleStates()]);
        return { queues, schedules };
      });
      last = { at, read: p };
      p.catch(() => {
        if (last?.read === p) last = undefined;
      });
    }
    return last.read;
  };

  new Gauge({
    name: 'svc_tasks',
    help: `Tasks by queue and status. ${GLOBAL}`,
    labelNames: ['queue', 'status'],
    registers,
    async collect() {
      const models = await read();
      this.reset();
      for (const q of models?.queues ?? []) {
        for (const [status, field] of Object.entries(STATUS_FIELDS)) this.set({ queue: q.queueName, status }, q[field]);
      }
    },
  });
  new Gauge({
    name: 'svc_queue_oldest_waiting_seconds',
    help: `How long the next Queued task of each queue has waited since it became due, seconds (0: none waits). ${GLOBAL}`,
    labelNames: ['queue'],
    registers,
    async collect() {
      const models = await read();
      this.reset();
      for (const q of models?.queues ?? []) this.set({ queue: q.queueName }, (q.oldestQueuedAgeMs ?? 0) / 1000);
    },
  });
  new Gauge({
    name: 'svc_schedules',
    help: `Durable schedules by state: active (materializing) or halted (over their catch-up cap, waiting for a resume). ${GLOBAL}`,
    labelNames: ['state'],
    registers,
    async collect() {
      const models = await read();
      this.reset();
      if (models === undefined) return;
      this.set({ state: 'active' }, models.schedules.active);
      this.set({ state: 'halted' }, models.schedules.halted);
    },
  });
}
