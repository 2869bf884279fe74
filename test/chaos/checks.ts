import { handlerRuns, type HandlerRun, type History, type LifeRecord } from './history.js';

const TERMINAL = new Set(['Completed', 'Failed', 'Cancelled']);

export interface CheckResult {
  /** How many times each check was applied (rows, runs, pairs of runs, cancels, processes). */
  checked: Record<string, number>;
  violations: string[];
  /** Facts worth printing that are no violation (overlaps a lost lease allows, dispatches lost with their process). */
  notes: Record<string, number>;
}

/**
 * Whether a life lost its lease at some time in [from, to]: it sat paused past its lease (its
 * heartbeat may be up to a lease old when the pause begins), or it logged a lapse of its lease
 * (from its last heartbeat to when it learnt of the lapse); its rows could be taken over then.
 */
const lostLeaseWithin = (life: LifeRecord | undefined, lapses: readonly [number, number][], from: number, to: number, leaseUs: number): boolean =>
  (life?.pauses ?? []).some(([a, b]) => a < to && b > from && b - a > leaseUs) || lapses.some(([a, b]) => a < to && b > from);

const pausesOf = (life: LifeRecord | undefined): string =>
  (life?.pauses ?? []).map(([a, b]) => `${ms(a)}–${ms(b)}`).join(', ') || 'none';

/**
 * The queue checks of a finished run (see test/chaos/README.md):
 * 1. terminal: every dispatched task is in exactly one terminal state, no row left Queued, InProgress,
 *    reserved or ServiceStopped after the drain (every process alive for over one lease);
 * 2. exclusive: no two runs of one task overlap (unless the first one's process sat paused past its
 *    lease: its row was rightly taken over, and its late end must be fenced), none begins after its cancel committed;
 * 3. accounted: each run that ended in a process that lived on was recorded (its end event) or fenced
 *    (the process's staleRunWrites); each row's abandoned count covers the runs whose process died.
 * Read models are checked by the caller (they need the store).
 */
export function checkHistory(h: History): CheckResult {
  const violations: string[] = [];
  const checked: Record<string, number> = { terminal: 0, exactlyOneEnd: 0, overlap: 0, cancel: 0, recordedOrFenced: 0, abandoned: 0 };
  const notes: Record<string, number> = { dispatchesLostWithProcess: 0, overlapsAfterLostLease: 0, runsDiedWithProcess: 0, runsOutlivedStop: 0, endsUnknownAtKill: 0, runsFenced: 0 };
  const leaseUs = h.leaseMs * 1000;
  const rows = new Map(h.rows.map((r) => [r.id, r]));
  const runs = handlerRuns(h.lines);
  const runsOf = new Map<string, HandlerRun[]>();
  for (const run of runs) runsOf.set(run.task, [...(runsOf.get(run.task) ?? []), run]);
  // Each life's logged lease lapses: from its last heartbeat to when it learnt of the lapse.
  const lapsesOf = new Map<string, [number, number][]>();
  for (const l of h.lines) if (l.k === 'leaseLost') lapsesOf.set(l.proc, [...(lapsesOf.get(l.proc) ?? []), [l.t - (l.sinceUs ?? 0), l.t]]);
  notes.leaseLapses = [...lapsesOf.values()].reduce((n, list) => n + list.length, 0);

  // 1. Every dispatched task has a row in a terminal state; a dispatch whose process was killed
  // before it was written is lost with it (dispatch answers before the group commit).
  for (const line of h.lines.filter((l) => l.k === 'dispatched')) {
    if (rows.has(line.task!)) continue;
    if (h.lives.get(line.proc)?.killed) notes.dispatchesLostWithProcess!++;
    else violations.push(`dispatched task ${line.task} (by ${line.proc}) has no row`);
  }
  for (const row of h.rows) {
    checked.terminal!++;
    if (!TERMINAL.has(row.status)) violations.push(`${row.is_schedule ? 'schedule' : 'task'} ${row.id} (${row.type}) ends the run ${row.status}`);
  }
  // Exactly one end: a task no retry or requeue sent back gets at most one ending event, from one process.
  const endings = new Map<string, string[]>();
  for (const line of h.lines) {
    if (line.k === 'event' && (line.kind === 'Completed' || line.kind === 'Cancelled' || (line.kind === 'Failed' && !isRetriedAttempt(line.task!, line.t, runsOf)))) {
      endings.set(line.task!, [...(endings.get(line.task!) ?? []), `${line.kind} in ${line.proc}`]);
    }
  }
  for (const [task, list] of endings) {
    if (h.rerun.has(task)) continue;
    checked.exactlyOneEnd!++;
    if (list.length > 1) violations.push(`task ${task} ended more than once: ${list.join(', ')}`);
    const row = rows.get(task);
    if (row && TERMINAL.has(row.status) && !list.some((e) => e.startsWith(row.status))) {
      violations.push(`task ${task} ended ${list.join(', ')} but its row says ${row.status}`);
    }
  }

  // 2. No overlapping runs of one task; none begins after its cancel committed.
  for (const [task, list] of runsOf) {
    const ordered = [...list].sort((a, b) => a.begin - b.begin);
    for (let i = 0; i < ordered.length; i++) {
      for (let j = i + 1; j < ordered.length; j++) {
        const first = ordered[i]!;
        const next = ordered[j]!;
        checked.overlap!++;
        const firstEnd = first.end ?? diedAt(h.lives.get(first.proc));
        if (next.begin >= firstEnd) continue;
        if (lostLeaseWithin(h.lives.get(first.proc), lapsesOf.get(first.proc) ?? [], first.begin, next.begin, leaseUs)) {
          notes.overlapsAfterLostLease!++;
          continue;
        }
        violations.push(`task ${task}: run in ${next.proc} began at ${ms(next.begin)} while its run in ${first.proc} (began ${ms(first.begin)}) still ran until ${ms(firstEnd)} (${first.proc} paused: ${pausesOf(h.lives.get(first.proc))}; faults in the 3 s before: ${faultsBefore(h, next.begin)})`);
      }
    }
  }
  // A cancel commits when its process says Cancelled (the event follows the commit), or when the
  // API's schedule cancel answers (every occurrence of it then Cancelled was cancelled by it).
  const cancelledAt: { task: string; at: number; via: string }[] = h.lines
    .filter((l) => l.k === 'event' && l.kind === 'Cancelled')
    .map((l) => ({ task: l.task!, at: l.t, via: `Cancelled event in ${l.proc}` }));
  for (const cancel of h.cancels) {
    const covered = cancel.via === 'task' ? [cancel.target] : h.rows.filter((r) => r.parent_task_id === cancel.target && r.status === 'Cancelled').map((r) => r.id);
    for (const task of covered) cancelledAt.push({ task, at: cancel.at, via: `${cancel.via} cancel answered` });
  }
  for (const cancel of cancelledAt) {
    if (h.rerun.has(cancel.task)) continue;
    checked.cancel!++;
    const late = (runsOf.get(cancel.task) ?? []).find((r) => r.begin > cancel.at);
    if (late) violations.push(`task ${cancel.task}: a handler began in ${late.proc} at ${ms(late.begin)}, after its cancel committed at ${ms(cancel.at)} (${cancel.via})`);
  }

  // 3. Each run recorded, fenced, or dead with its process; abandoned counts match the deaths.
  const uncommitted = new Map<string, number>();
  const died = new Map<string, number>();
  const stopping = new Map<string, number>();
  for (const line of h.lines) if (line.k === 'stopping') stopping.set(line.proc, line.t);
  for (const run of runs) {
    const life = h.lives.get(run.proc);
    const committed = run.committed || isRetriedAttempt(run.task, run.end ?? run.begin, runsOf, run);
    if (committed) continue;
    if (run.end === undefined) {
      // It died with its process: its row must count it abandoned.
      if (life?.killed) {
        notes.runsDiedWithProcess!++;
        died.set(run.task, (died.get(run.task) ?? 0) + 1);
      }
      continue;
    }
    if (run.end > (stopping.get(run.proc) ?? Number.POSITIVE_INFINITY)) {
      // It outlived its engine's stop (grace over): its row was left ServiceStopped, not ended by it.
      notes.runsOutlivedStop!++;
      continue;
    }
    if (life?.killed && run.end > diedAt(life) - 2_000_000) {
      // Its end may have been written just before the kill, its event not yet logged: unknown.
      notes.endsUnknownAtKill!++;
      continue;
    }
    checked.recordedOrFenced!++;
    uncommitted.set(run.proc, (uncommitted.get(run.proc) ?? 0) + 1);
  }
  const stale = new Map<string, number>();
  for (const line of h.lines) if (line.k === 'health') stale.set(line.proc, Math.max(stale.get(line.proc) ?? 0, line.stale ?? 0));
  for (const [proc, n] of uncommitted) {
    const fenced = stale.get(proc) ?? 0;
    notes.runsFenced! += Math.min(n, fenced);
    if (n > fenced) violations.push(`${proc}: ${n} handler runs ended without their end recorded, but only ${fenced} writes were fenced (staleRunWrites)`);
  }
  const disruptions = [...h.lives.values()].filter((l) => l.killed || l.termAt !== undefined || l.pauses.some(([a, b]) => b - a > leaseUs) || lapsesOf.has(l.proc)).length;
  for (const row of h.rows) {
    if (row.is_schedule || h.rerun.has(row.id)) continue;
    checked.abandoned!++;
    const deaths = died.get(row.id) ?? 0;
    // A cancel that ends the row before recovery finds the dead run leaves it uncounted, rightly.
    if (row.abandoned_count < deaths && row.status !== 'Cancelled') violations.push(`task ${row.id}: ${deaths} runs died with their process but its row counts ${row.abandoned_count} abandoned`);
    if (row.abandoned_count > 0 && disruptions === 0) violations.push(`task ${row.id}: counts ${row.abandoned_count} abandoned runs although no process died, stopped or lost its lease`);
  }
  return { checked, violations, notes };
}

/** A failed attempt the engine retried: a later attempt of the same task began. */
function isRetriedAttempt(task: string, at: number, runsOf: Map<string, HandlerRun[]>, run?: HandlerRun): boolean {
  if (run !== undefined && run.outcome !== 'Failed') return false;
  return (runsOf.get(task) ?? []).some((r) => r.begin > at && (run === undefined || r.attempt > run.attempt));
}

/** When a life's handlers stopped running: the SIGKILL's sending, else its exit. */
const diedAt = (life: LifeRecord | undefined): number => life?.killedAt ?? life?.exitedAt ?? Number.POSITIVE_INFINITY;

const faultsBefore = (h: History, at: number): string =>
  h.faults.filter((f) => f.at <= at && f.at > at - 3_000_000).map((f) => `${f.kind}${f.proc === undefined ? '' : ` ${f.proc}`} at ${ms(f.at)}`).join(', ') || 'none';

const ms = (us: number): string => `${(us / 1000).toFixed(1)} ms`;
