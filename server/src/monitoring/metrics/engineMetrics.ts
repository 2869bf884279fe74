import { Counter, Gauge, type Registry } from 'prom-client';
import type { AttemptNotice, AttemptResult, StoppedRunNotice, SvcEvent, TaskEndNotice } from '../../contracts/index.js';
import { BoundedLabel } from './boundedLabel.js';
import { SeriesCounter, SeriesHistogram } from './boundSeries.js';
import { COMMIT_SECONDS_BUCKETS, TASK_SECONDS_BUCKETS, type FinishOutcome } from './metricFamilies.js';

/** What the per-process families read from the local engine. */
export interface MeteredEngine {
  on(event: 'event', listener: (e: SvcEvent) => void): unknown;
  off(event: 'event', listener: (e: SvcEvent) => void): unknown;
  health?(): { status: 'ok' | 'degraded' | 'failed'; unwrittenChanges?: number; clock?: { offsetMs: number } };
  observeCommits?(listener: (seconds: number) => void): () => void;
  observeStoppedRuns?(listener: (run: StoppedRunNotice) => void): () => void;
  observeAttempts?(listener: (attempt: AttemptNotice) => void): () => void;
  observeTaskEnds?(listener: (end: TaskEndNotice) => void): () => void;
}

/** The `result` label of `svc_task_attempts_total`: the engine's attempt results, and an attempt recovery found abandoned. */
export type AttemptLabel = AttemptResult | 'abandoned';

const HEALTH_STATES = ['ok', 'degraded', 'failed'] as const;
const PER_PROCESS = 'Per process (label engine_instance).';

/**
 * The per-process families: counters and histograms fed by the engine's events and commits, and
 * the engine's health read at scrape time. Returns the unsubscribe.
 */
export function registerEngineMetrics(registers: Registry[], engine: MeteredEngine, instance: string, typeLimit: number): () => void {
  const types = new BoundedLabel(typeLimit);
  const finished = new SeriesCounter({
    name: 'svc_tasks_finished_total',
    help: `Tasks that ended (a delivery's last attempt, or a cancel), by queue, type and outcome. ${PER_PROCESS}`,
    labelNames: ['engine_instance', 'queue', 'type', 'outcome'],
    registers,
  });
  const attempts = new SeriesCounter({
    name: 'svc_task_attempts_total',
    help: `Handler attempts by queue, type and result (succeeded, failed, timed_out, cancelled, stopped: given up at an engine stop, abandoned: found by recovery after its process died); a retried failure counts. ${PER_PROCESS}`,
    labelNames: ['engine_instance', 'queue', 'type', 'result'],
    registers,
  });
  const attemptSeconds = new SeriesHistogram({
    name: 'svc_task_attempt_seconds',
    help: `One handler attempt's run time, seconds (every attempt, whatever its result). ${PER_PROCESS}`,
    labelNames: ['engine_instance', 'queue', 'type'],
    buckets: TASK_SECONDS_BUCKETS,
    registers,
  });
  const taskSeconds = new SeriesHistogram({
    name: 'svc_task_duration_seconds',
    help: `A task's whole time, from its dispatch to its written terminal end (Completed, Failed or Cancelled by its run here), seconds. ${PER_PROCESS}`,
    labelNames: ['engine_instance', 'queue', 'type'],
    buckets: TASK_SECONDS_BUCKETS,
    registers,
  });
  const waitSeconds = new SeriesHistogram({
    name: 'svc_task_wait_seconds',
    help: `Time a task waited between becoming due and its handler starting, seconds. ${PER_PROCESS}`,
    labelNames: ['engine_instance', 'queue'],
    buckets: TASK_SECONDS_BUCKETS,
    registers,
  });
  const missedSlots = new Counter({
    name: 'svc_schedule_missed_slots_total',
    help: `Schedule slots skipped (not run) by the materializer. ${PER_PROCESS}`,
    labelNames: ['engine_instance'],
    registers,
  });
  const commitSeconds = new SeriesHistogram({
    name: 'svc_engine_commit_seconds',
    help: `Duration of the engine's store commits (one transaction each), seconds. ${PER_PROCESS}`,
    labelNames: ['engine_instance'],
    buckets: COMMIT_SECONDS_BUCKETS,
    registers,
  });
  new Gauge({
    name: 'svc_engine_health',
    help: `1 for the engine's current health state (ok, degraded: writes failing or late, failed: cannot write), else 0. ${PER_PROCESS}`,
    labelNames: ['engine_instance', 'state'],
    registers,
    collect() {
      const status = engine.health?.().status ?? 'ok';
      for (const state of HEALTH_STATES) this.set({ engine_instance: instance, state }, state === status ? 1 : 0);
    },
  });
  new Gauge({
    name: 'svc_engine_unwritten_changes',
    help: `Changes the engine holds in memory, not yet written to the store. ${PER_PROCESS}`,
    labelNames: ['engine_instance'],
    registers,
    collect() {
      this.set({ engine_instance: instance }, engine.health?.().unwrittenChanges ?? 0);
    },
  });
  new Gauge({
    name: 'svc_engine_clock_offset_seconds',
    help: `This host's clock minus the database's, seconds, measured on each heartbeat (engines on PostgreSQL only; they run on the database's clock). ${PER_PROCESS}`,
    labelNames: ['engine_instance'],
    registers,
    collect() {
      const offsetMs = engine.health?.().clock?.offsetMs;
      if (offsetMs !== undefined) this.set({ engine_instance: instance }, offsetMs / 1000);
    },
  });

  // A final attempt that timed out emits Timeout and then Failed in the same turn; a Timeout of an
  // attempt that is retried stands alone. So a mark lives until the end of the current turn.
  const timedOut = new Set<string>();
  const end = (queue: string, taskType: string, outcome: FinishOutcome) => void finished.of(instance, queue, types.of(taskType), outcome).value++;
  const endOf = (e: SvcEvent, outcome: FinishOutcome) => end(e.queueName ?? 'default', e.taskType, outcome);
  const onEvent = (e: SvcEvent) => {
    switch (e.kind) {
      case 'Started':
        if (e.waitTimeMs !== undefined) waitSeconds.of(instance, e.queueName ?? 'default').observe(e.waitTimeMs / 1000);
        return;
      case 'Completed':
        return endOf(e, 'completed');
      case 'Failed':
        if (e.abandoned === true) {
          attempts.of(instance, e.queueName ?? 'default', types.of(e.taskType), 'abandoned').value++;
          return endOf(e, 'abandoned');
        }
        return endOf(e, timedOut.has(e.taskId) ? 'timed_out' : 'failed');
      case 'Cancelled':
        return endOf(e, 'cancelled');
      case 'Timeout':
        timedOut.add(e.taskId);
        queueMicrotask(() => timedOut.delete(e.taskId));
        return;
      case 'OccurrenceSkipped':
        missedSlots.inc({ engine_instance: instance }, e.skippedCount ?? 1);
        return;
    }
  };
  engine.on('event', onEvent);
  const commits = commitSeconds.of(instance);
  const stopCommits = engine.observeCommits?.((seconds) => commits.observe(seconds));
  const stopStoppedRuns = engine.observeStoppedRuns?.((run) => end(run.queueName, run.taskType, 'service_stopped'));
  const stopAttempts = engine.observeAttempts?.((a) => {
    const type = types.of(a.taskType);
    attempts.of(instance, a.queueName, type, a.result).value++;
    attemptSeconds.of(instance, a.queueName, type).observe(a.seconds);
  });
  const stopTaskEnds = engine.observeTaskEnds?.((t) => taskSeconds.of(instance, t.queueName, types.of(t.taskType)).observe(t.seconds));
  return () => {
    engine.off('event', onEvent);
    stopCommits?.();
    stopStoppedRuns?.();
    stopAttempts?.();
    stopTaskEnds?.();
  };
}
