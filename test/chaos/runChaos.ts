import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../fixtures/server/postgresDatabase.js';
import { checkHistory } from './checks.js';
import { startLife, type EngineLife } from './engineProcesses.js';
import type { CancelAck, History, LifeRecord } from './history.js';
import { API_ACCESS, type ChildSettings, type LogLine } from './protocol.js';
import { readFinalState } from './finalState.js';
import { seededRandom, type SeededRandom } from './seededRandom.js';

/** The faults a run may inject; `clock` gives each new process life a wall clock off by up to ±5 s. */
export const FAULT_KINDS = ['kill', 'pause', 'term', 'clock', 'pgTerminate', 'cancel', 'bulkCancel', 'retry', 'bulkRetry', 'requeue', 'scheduleCancel'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface ChaosOptions {
  backend: 'sqlite' | 'postgres';
  seed: number;
  /** How long faults are injected; the drain and the checks come after. */
  durationMs: number;
  faults: readonly FaultKind[];
  leaseMs?: number;
  /** Progress lines (nothing by default). */
  log?: (line: string) => void;
}

export interface ChaosReport {
  backend: 'sqlite' | 'postgres';
  seed: number;
  faults: Partial<Record<FaultKind | 'catchUp' | 'restart', number>>;
  tasks: number;
  handlerRuns: number;
  checked: Record<string, number>;
  notes: Record<string, number>;
  violations: string[];
  elapsedMs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ORIGIN = process.hrtime.bigint();
const nowUs = (): number => Number((process.hrtime.bigint() - ORIGIN) / 1000n);
const GRACE_MS = 150;
/** The longest drain after the faults, however steadily the rows still reach their end. */
const DRAIN_MAX_MS = 180_000;
/** Every status a row can hold before its end. */
const NOT_ENDED = ['WaitingQueue', 'Pending', 'Queued', 'InProgress', 'ServiceStopped'];
const TYPES = ['Chaos.Work', 'Chaos.Work', 'Chaos.Work', 'Chaos.Flaky', 'Chaos.Doomed'] as const;

/**
 * One seeded run: engine processes (SQLite: one, restarted after each death; PostgreSQL: three on
 * one database) take work while faults are injected, then everything is drained, stopped and checked.
 */
export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const started = Date.now();
  // The plan draws the same numbers in every step whatever happened, so a seed replays the same
  // schedule of work and faults; each step's own choices (which process, how long) come from a
  // source of that step, and each life's clock from a source of that life.
  const plan = seededRandom(options.seed);
  const sourceOf = (salt: number): SeededRandom => seededRandom((options.seed * 7919 + salt * 104729) >>> 0);
  const leaseMs = options.leaseMs ?? (options.backend === 'postgres' ? 1500 : 1000);
  const enabled = new Set(options.faults);
  const say = options.log ?? (() => undefined);
  const dir = mkdtempSync(join(tmpdir(), 'svc-chaos-'));
  let database: TestDatabase | undefined;
  const location = options.backend === 'sqlite' ? join(dir, 'tasks.db') : (database = await createTestDatabase('svc_chaos')).connectionString;
  const slots = options.backend === 'sqlite' ? 1 : 3;
  const faults: ChaosReport['faults'] = {};
  const faultTimes: History['faults'] = [];
  const count = (kind: keyof ChaosReport['faults'], proc?: string) => {
    faults[kind] = (faults[kind] ?? 0) + 1;
    faultTimes.push({ kind, at: nowUs(), proc });
  };
  const lives = new Map<string, LifeRecord>();
  const current: (EngineLife | undefined)[] = Array.from({ length: slots }, () => undefined);
  const busy = new Set<number>();
  const lifeCount = Array.from({ length: slots }, () => 0);
  const cancels: CancelAck[] = [];
  const rerun = new Set<string>();
  const schedules: string[] = [];
  let scheduleSerial = 0;
  /** The newest dispatched tasks (the likeliest to be queued or running): what a cancel picks from. */
  const recentDispatched: string[] = [];
  const background: Promise<unknown>[] = [];
  /** Lives that ended by themselves, not by a fault (a violation: an engine must survive them all). */
  const crashes: string[] = [];

  const start = async (slot: number): Promise<EngineLife> => {
    const proc = `p${slot + 1}#${++lifeCount[slot]!}`;
    const clock = sourceOf(1_000_000 + slot * 1000 + lifeCount[slot]!);
    const offset = enabled.has('clock') && clock.chance(0.7) ? clock.int(-5000, 5000) : 0;
    if (offset !== 0) count('clock', proc);
    const settings: ChildSettings = { backend: options.backend, location, proc, logFile: join(dir, `${proc}.log`), originNs: String(ORIGIN), leaseMs, graceMs: GRACE_MS };
    const record: LifeRecord = { proc, startedAt: nowUs(), exitedAt: Number.POSITIVE_INFINITY, killed: false, pauses: [], clockOffsetMs: offset };
    lives.set(proc, record);
    const life = await startLife(settings, offset);
    void life.exited.then(({ code, signal }) => {
      record.exitedAt = nowUs();
      record.killed = signal === 'SIGKILL';
      if (signal === null && code !== 0) {
        const text = life.stderrTail();
        writeFileSync(join(dir, `${proc}.stderr`), text);
        const first = text.split('\n').find((l) => /error/i.test(l)) ?? text.trim().split('\n').at(-1);
        crashes.push(`${proc} exited with code ${code} on its own: ${first} (stderr in ${proc}.stderr)`);
      }
    });
    current[slot] = life;
    return life;
  };
  const kill9 = (life: EngineLife) => {
    lives.get(life.proc)!.killedAt ??= nowUs();
    life.child.kill('SIGKILL');
  };
  const liveLives = () => current.filter((l): l is EngineLife => l !== undefined && l.alive && !l.paused);
  const anyLife = (rnd: SeededRandom = plan) => {
    const list = liveLives();
    return list.length === 0 ? undefined : rnd.pick(list);
  };
  let token = '';
  const api = async (life: EngineLife, path: string, init?: { method: string; body: unknown }) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (token !== '' && !path.startsWith('/auth/')) headers.authorization = `Bearer ${token}`;
    const r = await fetch(`http://127.0.0.1:${life.port}/svc-monitoring/api${path}`, { method: init?.method ?? 'GET', headers, body: init === undefined ? undefined : JSON.stringify(init.body) });
    return { status: r.status, body: (await r.json().catch(() => undefined)) as Record<string, unknown> | undefined };
  };

  /** Takes a slot out of service for the body (no other fault on it meanwhile). */
  const onSlot = (rnd: SeededRandom, body: (slot: number, life: EngineLife) => Promise<void>): void => {
    const free = current.map((l, i) => i).filter((i) => !busy.has(i) && current[i]?.alive === true);
    // Keep one process serving on PostgreSQL while another is out (the others take its work over).
    if (free.length === 0 || (slots > 1 && busy.size >= slots - 1)) return;
    const slot = rnd.pick(free);
    busy.add(slot);
    background.push(body(slot, current[slot]!).catch((e: unknown) => say(`fault on slot ${slot}: ${String(e)}`)).finally(() => busy.delete(slot)));
  };
  const restartAfter = async (slot: number, downMs: number) => {
    await sleep(downMs);
    await start(slot);
    count('restart', current[slot]?.proc);
    // A durable schedule that was due while no process ran catches up now.
    if (slots === 1 && downMs >= 1000 && schedules.length > 0) count('catchUp');
  };

  const injectors: Record<FaultKind, (rnd: SeededRandom) => void> = {
    kill: (rnd) => onSlot(rnd, async (slot, life) => {
      count('kill', life.proc);
      kill9(life);
      await life.exited;
      await restartAfter(slot, rnd.int(100, 2500));
    }),
    pause: (rnd) => onSlot(rnd, async (_slot, life) => {
      count('pause', life.proc);
      const record = lives.get(life.proc)!;
      const from = nowUs();
      life.paused = true;
      life.child.kill('SIGSTOP');
      await sleep(leaseMs + rnd.int(200, 1200));
      life.child.kill('SIGCONT');
      life.paused = false;
      record.pauses.push([from, nowUs()]);
    }),
    term: (rnd) => onSlot(rnd, async (slot, life) => {
      count('term', life.proc);
      lives.get(life.proc)!.termAt = nowUs();
      life.child.kill('SIGTERM');
      const exit = await Promise.race([life.exited, sleep(15_000).then(() => undefined)]);
      if (exit === undefined) kill9(life);
      await life.exited;
      await restartAfter(slot, rnd.int(100, 1500));
    }),
    clock: () => undefined, // applied to each new life in start()
    pgTerminate: () => {
      if (database === undefined) return;
      count('pgTerminate');
      background.push(terminateBackends(location).catch((e: unknown) => say(`pg_terminate_backend: ${String(e)}`)));
    },
    cancel: (rnd) => {
      const life = anyLife(rnd);
      const task = recentDispatched.length === 0 ? undefined : rnd.pick(recentDispatched);
      if (!life || !task) return;
      count('cancel');
      background.push(life.send({ op: 'cancel', task }).then((result) => {
        if (result === 'Cancelled') cancels.push({ via: 'task', target: task, at: nowUs() });
      }, () => undefined));
    },
    bulkCancel: (rnd) => bulk(rnd, 'cancel', 'Chaos.Work', ['Queued']),
    // Retries and requeues take rows that never ran (cancelled while queued): a rebuild of the read
    // models keeps a one-shot's last run only, so a re-run of a finished run would part them by design.
    bulkRetry: (rnd) => bulk(rnd, 'retry', 'Chaos.Work', ['Cancelled']),
    retry: (rnd) => {
      const life = anyLife(rnd);
      if (!life) return;
      count('retry');
      background.push((async () => {
        const list = await api(life, `/tasks?statuses=Cancelled&isRecurring=false&onlyOccurrences=false&pageSize=5`);
        const items = (list.body?.items ?? []) as { id: string }[];
        if (items.length === 0) return;
        const id = rnd.pick(items).id;
        rerun.add(id);
        await api(life, `/management/tasks/${id}/retry`, { method: 'POST', body: {} });
      })().catch(() => undefined));
    },
    requeue: (rnd) => {
      const life = anyLife(rnd);
      if (!life) return;
      count('requeue');
      background.push((async () => {
        const list = await api(life, `/tasks?statuses=Cancelled&onlyOccurrences=true&pageSize=5`);
        const items = (list.body?.items ?? []) as { id: string }[];
        if (items.length === 0) return;
        const id = rnd.pick(items).id;
        rerun.add(id);
        await api(life, `/management/tasks/${id}/requeue`, { method: 'POST', body: {} });
      })().catch(() => undefined));
    },
    scheduleCancel: (rnd) => {
      const life = anyLife(rnd);
      const id = schedules[0];
      if (!life || id === undefined) return;
      count('scheduleCancel');
      background.push(cancelSchedule(life, id).then((done) => (done ? addSchedule() : undefined)).catch(() => undefined));
    },
  };
  function bulk(rnd: SeededRandom, action: 'cancel' | 'retry', taskType: string, statuses: string[]): void {
    const life = anyLife(rnd);
    if (!life) return;
    count(action === 'cancel' ? 'bulkCancel' : 'bulkRetry');
    background.push((async () => {
      const query = `/tasks?taskType=${taskType}&${statuses.map((s) => `statuses=${s}`).join('&')}&pageSize=500`;
      const before = await api(life, query);
      const ids = ((before.body?.items ?? []) as { id: string }[]).map((i) => i.id);
      // Every row a retry sends back must be known to the checks (a re-run is no second end):
      // a bulk over more rows than one page lists is not sent.
      if (action === 'retry' && Number(before.body?.totalCount) > ids.length) return;
      if (action === 'retry') for (const id of ids) rerun.add(id);
      const r = await api(life, `/management/bulk/${action}`, { method: 'POST', body: { filter: { taskType, statuses }, expectedCount: before.body?.totalCount } });
      const operationId = r.body?.operationId as string | undefined;
      if (operationId === undefined) return;
      for (let i = 0; i < 100 && life.alive; i++) {
        const s = await api(life, `/management/bulk/${operationId}`);
        if (s.body?.state !== 'Running') return;
        await sleep(50);
      }
    })().catch(() => undefined));
  }
  /** Cancels a durable schedule through the API; true once it answered 200 (the schedule is then off the list). */
  async function cancelSchedule(life: EngineLife, id: string): Promise<boolean> {
    const r = await api(life, `/management/tasks/${id}/cancel`, { method: 'POST', body: {} });
    if (r.status !== 200) {
      say(`schedule ${id} not cancelled: ${r.status} ${JSON.stringify(r.body)}`);
      return false;
    }
    cancels.push({ via: 'schedule', target: id, at: nowUs() });
    schedules.splice(schedules.indexOf(id), 1);
    return true;
  }
  async function addSchedule(): Promise<void> {
    const life = anyLife();
    if (!life) return;
    const id = (await life.send({ op: 'schedule', key: `chaos-${++scheduleSerial}`, every: '1s', ms: 20 })) as string;
    schedules.push(id);
  }

  const report: ChaosReport = { backend: options.backend, seed: options.seed, faults, tasks: 0, handlerRuns: 0, checked: {}, notes: {}, violations: [], elapsedMs: 0 };
  try {
    for (let slot = 0; slot < slots; slot++) await start(slot);
    const login = await api(current[0]!, '/auth/login', { method: 'POST', body: API_ACCESS.login });
    if (login.status !== 200) throw new Error(`login failed: ${login.status} ${JSON.stringify(login.body)}`);
    token = login.body!.token as string;
    await addSchedule();
    const until = Date.now() + options.durationMs;
    const kinds = [...enabled].filter((k) => k !== 'clock' && (k !== 'pgTerminate' || options.backend === 'postgres'));
    for (let step = 1; Date.now() < until; step++) {
      const [pause, dispatches, type, handlerMs, batch, faulty, kind] = [plan.int(50, 250), plan.chance(0.8), plan.pick(TYPES), plan.int(10, 400), plan.int(1, 4), plan.chance(0.2), plan.next()];
      const rnd = sourceOf(step);
      await sleep(pause);
      const life = anyLife(rnd);
      if (life && dispatches) {
        background.push(life.send({ op: 'dispatch', type, ms: handlerMs, count: batch }).then((ids) => {
          recentDispatched.push(...(ids as string[]));
          recentDispatched.splice(0, Math.max(0, recentDispatched.length - 40));
        }, () => undefined));
      }
      if (kinds.length > 0 && faulty) injectors[kinds[Math.floor(kind * kinds.length)]!](rnd);
    }
    say('faults over: draining');
    // Drain: every fault ends, every slot runs, the schedules are cancelled (through the API), and
    // the rows must all reach a terminal state: the drain ends when none is left, or when their
    // number has not gone down for one lease plus the longest handler (a row no live process
    // takes: the checks then report it). A backlog the processes are still working through (a
    // loaded machine, slots that spent the run restarting) is waited for, up to DRAIN_MAX_MS.
    await Promise.all(background);
    for (let slot = 0; slot < slots; slot++) if (current[slot]?.alive !== true) await start(slot);
    for (let i = 0; schedules.length > 0 && i < 20; i++) await cancelSchedule(anyLife()!, schedules[0]!).catch(() => sleep(200));
    const drainStarted = Date.now();
    let fewestOpen = Number.POSITIVE_INFINITY;
    let fewerSince = Date.now();
    while (Date.now() - fewerSince < leaseMs + 8_000 && Date.now() - drainStarted < DRAIN_MAX_MS) {
      const r = await api(anyLife()!, `/tasks?${NOT_ENDED.map((st) => `statuses=${st}`).join('&')}&pageSize=1`);
      const open = typeof r.body?.totalCount === 'number' ? r.body.totalCount : Number.POSITIVE_INFINITY;
      if (open === 0) break;
      if (open < fewestOpen) {
        fewestOpen = open;
        fewerSince = Date.now();
      }
      await sleep(200);
    }
    say(`drained in ${((Date.now() - drainStarted) / 1000).toFixed(1)} s`);
    for (const life of current) life?.child.kill('SIGTERM');
    await Promise.all(current.map((l) => l && Promise.race([l.exited, sleep(10_000).then(() => kill9(l))])));
    await Promise.all(current.map((l) => l?.exited));

    const history: History = { lines: lines(dir), lives, cancels, rerun, rows: [], leaseMs, faults: faultTimes };
    const final = await readFinalState(options.backend, location);
    history.rows = final.rows;
    for (const id of final.sentBack) rerun.add(id);
    const result = checkHistory(history);
    report.violations.push(...crashes, ...result.violations, ...final.violations);
    report.checked = { ...result.checked, ...final.checked };
    report.notes = result.notes;
    report.tasks = final.rows.filter((r) => !r.is_schedule).length;
    report.handlerRuns = history.lines.filter((l) => l.k === 'begin').length;
  } finally {
    for (const life of current) if (life?.alive) life.child.kill('SIGKILL');
    await database?.drop().catch(() => undefined);
    if (report.violations.length === 0) rmSync(dir, { recursive: true, force: true });
    else say(`logs kept in ${dir}`);
    report.elapsedMs = Date.now() - started;
  }
  return report;
}

/** Every process's log lines so far. */
function lines(dir: string): LogLine[] {
  const out: LogLine[] = [];
  for (let slot = 1; slot <= 3; slot++) {
    for (let life = 1; ; life++) {
      const file = join(dir, `p${slot}#${life}.log`);
      if (!existsSync(file)) break;
      for (const text of readFileSync(file, 'utf8').split('\n')) {
        if (text === '') continue;
        try {
          out.push(JSON.parse(text) as LogLine);
        } catch {
          // a line cut by SIGKILL in the middle of its write
        }
      }
    }
  }
  return out;
}

/** pg_terminate_backend of every connection to the run's database (the engines' pools reconnect). */
async function terminateBackends(connectionString: string): Promise<void> {
  const client = new pg.Client({ connectionString });
  // Two of these may overlap and end each other's connection while it is idle: heard, not a crash of the harness.
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
  } finally {
    await client.end();
  }
}
