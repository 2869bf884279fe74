import type { LogLine } from './protocol.js';

/** What the harness knows of one life of an engine process; times in µs since the origin. */
export interface LifeRecord {
  proc: string;
  startedAt: number;
  /** When the harness saw it exit (Infinity while it ran). */
  exitedAt: number;
  /** Ended by SIGKILL (a real death: its running handlers died with it). */
  killed: boolean;
  /** When the harness sent it SIGKILL. */
  killedAt?: number;
  /** SIGSTOP … SIGCONT spans. */
  pauses: [number, number][];
  /** When it was sent SIGTERM, if it was. */
  termAt?: number;
  clockOffsetMs: number;
}

/** A cancel the harness saw committed (its answer came back) at `at`. */
export interface CancelAck {
  /** 'task': engine.cancel(id) answered Cancelled; 'schedule': the API's schedule cancel answered 200. */
  via: 'task' | 'schedule';
  /** The task id or the schedule's row id. */
  target: string;
  at: number;
}

/** A final row, as the store holds it after the run. */
export interface FinalRow {
  id: string;
  type: string;
  status: string;
  abandoned_count: number;
  parent_task_id: string | null;
  is_schedule: boolean;
}

/** Everything a run recorded, for the checks. */
export interface History {
  lines: LogLine[];
  lives: Map<string, LifeRecord>;
  cancels: CancelAck[];
  /** Tasks a retry or requeue sent back to Queued (run again legitimately): left out of the per-run counts. */
  rerun: Set<string>;
  rows: FinalRow[];
  leaseMs: number;
  /** Each fault injected: its kind, when, and the life it hit (if one). */
  faults: { kind: string; at: number; proc?: string }[];
}

/** One handler run: its begin, its end when it ended, and whether its end was committed (an event of that process followed). */
export interface HandlerRun {
  task: string;
  proc: string;
  attempt: number;
  begin: number;
  end?: number;
  outcome?: string;
  committed: boolean;
}

const ENDING_EVENTS = new Set(['Completed', 'Failed', 'Cancelled', 'Timeout']);

/** Pairs each process's begin and end lines per task, in order, and finds each end's run event. */
export function handlerRuns(lines: readonly LogLine[]): HandlerRun[] {
  const runs: HandlerRun[] = [];
  const open = new Map<string, HandlerRun[]>();
  const awaitingEvent = new Map<string, HandlerRun[]>();
  for (const line of [...lines].sort((a, b) => a.t - b.t)) {
    if (line.task === undefined) continue;
    const key = `${line.proc} ${line.task}`;
    if (line.k === 'begin') {
      const run: HandlerRun = { task: line.task, proc: line.proc, attempt: line.attempt ?? 0, begin: line.t, committed: false };
      runs.push(run);
      open.set(key, [...(open.get(key) ?? []), run]);
    } else if (line.k === 'end') {
      const run = open.get(key)?.shift();
      if (!run) continue;
      run.end = line.t;
      run.outcome = line.outcome;
      awaitingEvent.set(key, [...(awaitingEvent.get(key) ?? []), run]);
    } else if (line.k === 'event' && line.kind !== undefined && ENDING_EVENTS.has(line.kind)) {
      // The event ends the newest ended run of that process (an earlier failed attempt that was
      // retried has no event of its own).
      const run = awaitingEvent.get(key)?.pop();
      if (run) run.committed = true;
      awaitingEvent.delete(key);
    }
  }
  return runs;
}
