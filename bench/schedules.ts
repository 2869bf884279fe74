// Benchmark of durable schedules (issue 4): `npm run bench:schedules [-- --storage postgres]`.
// 1. 1,000 every-minute durable schedules (ReplayAll, cap 2,000), engine down 24 h: time for the
//    restarted engine's materializer to plan and write every catch-up occurrence (1.44 M; on
//    SQLite compact rows counted in the read models, each one's task row, Pending audit and search
//    row written when it is due).
//    SQLite, same run: the floor, the same compact rows inserted by hand in batches into a copy of
//    the database as it was before the catch-up (the ratio is catch-up / floor); the task-row floor,
//    the same occurrences as task rows with their Pending audits by hand (the row shape a catch-up
//    wrote before migration 15); and the deferred work: every compact row turned into its task row
//    (audit, search row) as promotion does when they are due, timed in one go.
//    PostgreSQL (compact rows too, migration 19): one instance; with the backlog waiting, the same
//    dashboard reads; the floor, the same compact rows read back and inserted again by hand in
//    batches into the emptied table (bench/schedulesFloorPostgres.ts; ratio catch-up / floor); the
//    deferred work (every compact row spilled); then two instances materializing the same
//    schedules at once (every slot written exactly once); then the same-run baseline, the catch-up
//    as task rows (compactFrom ∞, the write before migration 19).
//    Both, with the backlog waiting: the dashboard's reads (bench/backlogReads.ts): the default
//    list's and the Pending filter's p99, the worst other variant's, the event loop's longest delay.
// 2. The counting bound (SQLite): a per-second cron down for one year (window 400 d) → halt with
//    detectedAtLeast = 100,000, isExact = false.
// BENCH_SCHEDULES sets the number of schedules (smoke runs: 20–200); BENCH_PG the PostgreSQL server.
import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SvcEvent } from '../server/src/contracts/index.js';
import type { EngineInternals } from '../server/src/engine/EngineInternals.js';
import { createScheduleManager, type DurableScheduleManager } from '../server/src/engine/schedules/index.js';
import type { EngineStore } from '../server/src/storage/EngineStore.js';
import { createSqliteEngineStore } from '../server/src/storage/sqlite/createSqliteEngineStore.js';
import { openSqliteStorage } from '../server/src/storage/sqlite/openSqliteStorage.js';
import { sqliteReadDb } from '../server/src/storage/sqlite/monitoring/sqliteReadDb.js';
import { backlogScheduleShape, formatBacklogReads, measureBacklogReads } from './backlogReads.js';
import { withBenchDatabase } from './benchDatabase.js';
import { insertHandWrittenCompact, insertHandWrittenOccurrences, readCompactColumns, readOccurrenceColumns } from './schedulesFloor.js';
import { spillPendingOccurrences } from '../server/src/storage/sqlite/schedules/spillPendingOccurrences.js';
import { taskWriter } from '../server/src/storage/sqlite/readModels/taskWriter.js';
import { scheduleInternals } from '../test/fixtures/scheduleInternals.js';

const SCHEDULES = Number(process.env.BENCH_SCHEDULES ?? 1000);
const STORAGE = process.argv.includes('--storage') ? process.argv[process.argv.indexOf('--storage') + 1] : 'sqlite';
if (STORAGE !== 'sqlite' && STORAGE !== 'postgres') throw new Error(`--storage must be sqlite or postgres (got ${STORAGE})`);
if (!Number.isInteger(SCHEDULES) || SCHEDULES < 1) throw new Error(`BENCH_SCHEDULES must be a positive integer (got ${process.env.BENCH_SCHEDULES})`);
const PG_ADMIN = process.env.BENCH_PG ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const T0 = Date.parse('2026-02-02T10:00:30Z');
const DAY = 86_400_000;
const TARGET_MS = 15_000;
/** Rounds of the backlog reads (each read once a round); BENCH_READ_ROUNDS overrides. */
const READ_ROUNDS = Number(process.env.BENCH_READ_ROUNDS ?? 20);
/** What the targets are for: 1,000 schedules; smaller runs are scaled to it. */
const scaled = (ms: number) => (ms * 1000) / SCHEDULES;

function internalsFor(store: EngineStore, clock: { now: number }, events: SvcEvent[]): EngineInternals {
  return scheduleInternals(store, () => clock.now, events);
}

/** The store as it was before compact occurrences: every occurrence a task row (the PostgreSQL bench's same-run baseline). */
const TASK_ROWS = { compactFrom: Number.POSITIVE_INFINITY };

async function upsertSchedules(manager: DurableScheduleManager): Promise<void> {
  for (let i = 0; i < SCHEDULES; i++) {
    await manager.upsert({ key: `minute-${i}`, ...backlogScheduleShape(i), cron: '* * * * *', misfire: { policy: 'ReplayAll', overflowCap: 2000 } });
  }
}

/** CPU time of this process since `before`, in ms. */
const cpuMsSince = (before: NodeJS.CpuUsage) => {
  const c = process.cpuUsage(before);
  return Math.round((c.user + c.system) / 1000);
};

const loadLine = () => `load ${loadavg().map((l) => l.toFixed(1)).join(' ')}`;

async function benchSqlite(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-schedules-'));
  const file = join(dir, 'tasks.db');
  const floorFile = join(dir, 'floor.db');
  const taskFloorFile = join(dir, 'task-floor.db');
  try {
    const clock = { now: T0 };
    const events: SvcEvent[] = [];
    let storage = openSqliteStorage({ file });
    await upsertSchedules(createScheduleManager(internalsFor(createSqliteEngineStore(storage), clock, events)));
    storage.close();
    copyFileSync(file, floorFile);
    copyFileSync(file, taskFloorFile);

    // restart 24 h later
    clock.now = T0 + DAY;
    storage = openSqliteStorage({ file });
    const db = storage.db;
    const manager = createScheduleManager(internalsFor(createSqliteEngineStore(storage), clock, events));
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const outcome = await manager.materializer.drain(clock.now);
    const catchUpMs = performance.now() - started;
    const catchUpCpuMs = cpuMsSince(cpuBefore);
    const occurrences = (db.prepare('SELECT COUNT(*) FROM tasks WHERE parent_task_id IS NOT NULL').pluck().get() as number) +
      (db.prepare('SELECT COUNT(*) FROM pending_occurrences').pluck().get() as number);
    const halted = db.prepare('SELECT COUNT(*) FROM tasks WHERE halt IS NOT NULL').pluck().get() as number;
    console.log(`catch-up: ${SCHEDULES} schedules, ${occurrences} occurrences (${outcome.written} written by this pass, ${halted} halted) in ${catchUpMs.toFixed(0)} ms (cpu ${catchUpCpuMs} ms) = ${Math.round(occurrences / (catchUpMs / 1000))} occurrences/s; db ${(statSync(file).size / 1e6).toFixed(0)} MB; ${loadLine()}`);

    // steady state right after: the next tick with every Pending occurrence in the table
    const idleStarted = performance.now();
    await manager.materializer.tick(clock.now + 500);
    console.log(`next tick after the catch-up (nothing due): ${(performance.now() - idleStarted).toFixed(2)} ms`);

    // the dashboard during the backlog: the task list, its filters, sorts and pages, counts, overview
    const reads = await measureBacklogReads(sqliteReadDb(db), clock.now, READ_ROUNDS);
    console.log(`reads during the backlog (${READ_ROUNDS} rounds): default list p99 ${reads.listP99Ms} ms, Pending p99 ${reads.pendingListP99Ms} ms, worst other p99 ${reads.worstP99Ms} ms (${reads.worst}), event loop delay max ${reads.eventLoopMaxMs} ms; ${loadLine()}`);
    console.log(formatBacklogReads(reads));

    // the floors: the same rows by hand, into copies of the database as it was before the catch-up
    const floor = (target: string, read: typeof readCompactColumns, insert: typeof insertHandWrittenCompact) => {
      const columns = read(db);
      const floorStorage = openSqliteStorage({ file: target });
      const cpu = process.cpuUsage();
      const t = performance.now();
      insert(floorStorage.db, columns, clock.now);
      const ms = performance.now() - t;
      const cpuMs = cpuMsSince(cpu);
      floorStorage.close();
      return { rows: columns.count, ms, cpuMs };
    };
    const compactFloor = floor(floorFile, readCompactColumns, insertHandWrittenCompact);
    const taskFloor = floor(taskFloorFile, readOccurrenceColumns, insertHandWrittenOccurrences);
    const floorMs = compactFloor.ms;
    const floorCpuMs = compactFloor.cpuMs;
    const ratio = Math.round((catchUpMs / floorMs) * 100) / 100;
    console.log(`floor: the same ${compactFloor.rows} compact rows inserted by hand in batches in ${floorMs.toFixed(0)} ms (cpu ${floorCpuMs} ms); catch-up / floor = ${ratio} (cpu ${(catchUpCpuMs / floorCpuMs).toFixed(2)}); ${loadLine()}`);
    console.log(`task-row floor: the same ${taskFloor.rows} occurrences as task rows and their Pending audits by hand in ${taskFloor.ms.toFixed(0)} ms (cpu ${taskFloor.cpuMs} ms); catch-up / task-row floor = ${(catchUpMs / taskFloor.ms).toFixed(2)}`);

    // the deferred work: every compact row → its task row, Pending audit and search row (promotion
    // does this as rows fall due, a promotion batch at a time; here all of them in batches of 20,000)
    const write = taskWriter(db);
    const spillCpu = process.cpuUsage();
    const spillStarted = performance.now();
    let spilled = 0;
    for (;;) {
      const n = write((deltas) => spillPendingOccurrences(db, deltas, { due: Number.MAX_SAFE_INTEGER }, 20_000));
      if (n === 0) break;
      spilled += n;
    }
    const spillMs = performance.now() - spillStarted;
    const spillCpuMs = cpuMsSince(spillCpu);
    console.log(`deferred: ${spilled} compact rows turned into task rows (audit, search row) in ${spillMs.toFixed(0)} ms (cpu ${spillCpuMs} ms); ${loadLine()}`);

    // counting bound: per-second cron, one year of downtime
    clock.now = Date.parse('2026-01-01T00:00:00Z');
    const id = await manager.upsert({
      key: 'per-second', type: 'Bench.EverySecond', cron: '* * * * * *', timeZone: 'Europe/Rome',
      misfire: { policy: 'ReplayAll', windowMs: 400 * DAY, overflowCap: 1000 },
    });
    clock.now += 365 * DAY;
    const boundStarted = performance.now();
    await manager.materializer.materializeSchedule(id, clock.now);
    const boundCountMs = performance.now() - boundStarted;
    const halt = JSON.parse(db.prepare('SELECT halt FROM tasks WHERE id = ?').pluck().get(id) as string) as { detectedAtLeast: number; isExact: boolean };
    console.log(`counting bound: per-second cron, 1 year down → halt detectedAtLeast=${halt.detectedAtLeast} isExact=${halt.isExact} in ${boundCountMs.toFixed(1)} ms`);
    storage.close();
    const met = (ok: boolean) => (ok ? 'met' : 'MISSED');
    console.log(`targets (scaled to 1,000 schedules): catch-up < ${TARGET_MS} ms (${scaled(catchUpMs).toFixed(0)} ms: ${met(scaled(catchUpMs) < TARGET_MS)}), bound < 1000 ms (${met(boundCountMs < 1000)})`);
    console.log(JSON.stringify({
      bench: 'schedules', storage: 'sqlite', schedules: SCHEDULES, occurrences, catchUpMs: Math.round(catchUpMs), catchUpCpuMs,
      floorMs: Math.round(floorMs), floorCpuMs, ratio, taskRowFloorMs: Math.round(taskFloor.ms), spillMs: Math.round(spillMs), spillCpuMs,
      boundCountMs: Math.round(boundCountMs * 10) / 10,
      listP99Ms: reads.listP99Ms, pendingListP99Ms: reads.pendingListP99Ms, readsWorstP99Ms: reads.worstP99Ms, eventLoopMaxMs: reads.eventLoopMaxMs,
    }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function benchPostgres(): Promise<void> {
  const { openPostgresStorage } = await import('../server/src/storage/postgres/openPostgresStorage.js');
  const { createPostgresEngineStore } = await import('../server/src/storage/postgres/createPostgresEngineStore.js');
  const { postgresReadDb } = await import('../server/src/storage/postgres/monitoring/postgresReadDb.js');
  const { spillPendingOccurrences } = await import('../server/src/storage/postgres/schedules/spillPendingOccurrences.js');
  const { insertHandWrittenCompactPg, takeCompactRows } = await import('./schedulesFloorPostgres.js');
  const { backendCpu } = await import('./backendCpu.js');

  interface OneInstance {
    /** CPU ms of this process and of the database's server processes, for the catch-up and for the floor. */
    cpu: { catchUp: number; catchUpServer: number | null; floor: number; floorServer: number | null };
    floorMs: number;
    floorRows: number;
    spillMs: number;
    spilled: number;
    reads: Awaited<ReturnType<typeof measureBacklogReads>>;
  }

  /**
   * A fresh database with the schedules, then `instances` engines catching up on it at once. With
   * one instance, in the same run: the reads during the backlog, the floor (the compact rows read
   * back and written again by hand into the emptied table) and the deferred work (every compact
   * row turned into its task row, audit and search words, in batches of 20,000).
   */
  async function catchUp(instances: number, options: { compactFrom?: number } = {}): Promise<{ ms: number; occurrences: number; compact: number; duplicates: number; one?: OneInstance }> {
    return withBenchDatabase(PG_ADMIN, 'svc_bench_schedules', async (url) => {
      const open = () => openPostgresStorage({ connectionString: url, rollupIntervalMs: 0 });
      const clock = { now: T0 };
      const events: SvcEvent[] = [];
      const setup = await open();
      const setupStore = createPostgresEngineStore(setup);
      await upsertSchedules(createScheduleManager(internalsFor(setupStore, clock, events)));
      await setupStore.dispose();
      await setup.close();

      clock.now = T0 + DAY;
      const engines = await Promise.all(Array.from({ length: instances }, async () => {
        const storage = await open();
        const store = createPostgresEngineStore(storage);
        return { storage, store, manager: createScheduleManager(internalsFor(store, clock, events), options) };
      }));
      try {
        const serverCpu = await backendCpu(engines[0]!.storage);
        const cpuBefore = process.cpuUsage();
        const started = performance.now();
        await Promise.all(engines.map((e) => e.manager.materializer.drain(clock.now)));
        const ms = performance.now() - started;
        const catchUpCpu = cpuMsSince(cpuBefore);
        const catchUpServer = await serverCpu();
        const storage = engines[0]!.storage;
        const count = async (sql: string) => Number((await storage.query<{ n: string }>(sql)).rows[0]!.n);
        const compact = await count('SELECT COUNT(*) AS n FROM pending_occurrences');
        const occurrences = (await count('SELECT COUNT(*) AS n FROM tasks WHERE parent_task_id IS NOT NULL')) + compact;
        // A slot written twice, in one form or across both (task row and compact row).
        const duplicates = await count(`SELECT COUNT(*) AS n FROM (SELECT 1 FROM (SELECT parent_task_id, nominal_slot_at FROM tasks WHERE parent_task_id IS NOT NULL
          UNION ALL SELECT parent_task_id, nominal_slot_at FROM pending_occurrence_tasks) o GROUP BY parent_task_id, nominal_slot_at HAVING COUNT(*) > 1) d`);
        if (instances !== 1 || compact === 0) return { ms, occurrences, compact, duplicates };

        const reads = await measureBacklogReads(postgresReadDb(storage), clock.now, READ_ROUNDS);
        const taken = await takeCompactRows(storage);
        const floorServerCpu = await backendCpu(storage);
        const floorCpuBefore = process.cpuUsage();
        const floorStarted = performance.now();
        await insertHandWrittenCompactPg(storage, taken);
        const floorMs = performance.now() - floorStarted;
        const floorCpu = cpuMsSince(floorCpuBefore);
        const floorServer = await floorServerCpu();
        const spillStarted = performance.now();
        let spilled = 0;
        for (;;) {
          const n = await storage.transaction((c) => spillPendingOccurrences(c, { due: Number.MAX_SAFE_INTEGER }, 20_000));
          if (n === 0) break;
          spilled += n;
        }
        const spillMs = performance.now() - spillStarted;
        return { ms, occurrences, compact, duplicates, one: { cpu: { catchUp: catchUpCpu, catchUpServer, floor: floorCpu, floorServer }, floorMs, floorRows: taken.count, spillMs, spilled, reads } };
      } finally {
        for (const e of engines) {
          await e.store.dispose();
          await e.storage.close();
        }
      }
    });
  }

  const one = await catchUp(1);
  const o = one.one!;
  console.log(`catch-up (PostgreSQL, one instance): ${SCHEDULES} schedules, ${one.occurrences} occurrences (${one.compact} compact) in ${one.ms.toFixed(0)} ms (cpu ${o.cpu.catchUp} ms, server cpu ${o.cpu.catchUpServer ?? '?'} ms) = ${Math.round(one.occurrences / (one.ms / 1000))} occurrences/s; ${loadLine()}`);
  console.log(`reads during the backlog (${READ_ROUNDS} rounds): default list p99 ${o.reads.listP99Ms} ms, Pending p99 ${o.reads.pendingListP99Ms} ms, worst other p99 ${o.reads.worstP99Ms} ms (${o.reads.worst}), event loop delay max ${o.reads.eventLoopMaxMs} ms; ${loadLine()}`);
  console.log(formatBacklogReads(o.reads));
  const ratio = Math.round((one.ms / o.floorMs) * 100) / 100;
  const cpuSum = (a: number, b: number | null) => (b === null ? null : a + b);
  const catchUpCpuMs = cpuSum(o.cpu.catchUp, o.cpu.catchUpServer);
  const floorCpuMs = cpuSum(o.cpu.floor, o.cpu.floorServer);
  const cpuRatio = catchUpCpuMs === null || floorCpuMs === null ? null : Math.round((catchUpCpuMs / floorCpuMs) * 100) / 100;
  console.log(`floor: the same ${o.floorRows} compact rows inserted by hand in batches in ${o.floorMs.toFixed(0)} ms (cpu ${o.cpu.floor} ms, server cpu ${o.cpu.floorServer ?? '?'} ms); catch-up / floor = ${ratio} (cpu, both processes: ${cpuRatio ?? '?'}); ${loadLine()}`);
  console.log(`deferred: ${o.spilled} compact rows turned into task rows (audit, search words) in ${o.spillMs.toFixed(0)} ms; ${loadLine()}`);
  const two = await catchUp(2);
  const rows = await catchUp(1, TASK_ROWS);
  console.log(`baseline: the same catch-up as task rows (compactFrom ∞, the write before migration 19), one instance: ${rows.occurrences} occurrences in ${rows.ms.toFixed(0)} ms; compact / task rows = ${(one.ms / rows.ms).toFixed(2)}; ${loadLine()}`);
  console.log(`catch-up (PostgreSQL, two instances at once): ${two.occurrences} occurrences (${two.compact} compact), ${two.duplicates} duplicate slots, in ${two.ms.toFixed(0)} ms; ${loadLine()}`);
  const expected = SCHEDULES * 1440;
  if (one.occurrences !== expected || two.occurrences !== expected || rows.occurrences !== expected || two.duplicates !== 0 || o.spilled !== o.floorRows) {
    throw new Error(`expected ${expected} occurrences, no duplicate slot, every compact row spilled (one: ${one.occurrences}; two: ${two.occurrences}, ${two.duplicates} duplicates; spilled ${o.spilled} of ${o.floorRows})`);
  }
  console.log(`target (scaled to 1,000 schedules): catch-up < ${TARGET_MS} ms: one instance ${scaled(one.ms).toFixed(0)} ms, two instances ${scaled(two.ms).toFixed(0)} ms`);
  console.log(JSON.stringify({
    bench: 'schedules', storage: 'postgres', schedules: SCHEDULES, occurrences: one.occurrences, catchUpMs: Math.round(one.ms),
    twoInstancesMs: Math.round(two.ms), duplicates: two.duplicates, catchUpScaledMs: Math.round(scaled(one.ms)), twoInstancesScaledMs: Math.round(scaled(two.ms)),
    floorMs: Math.round(o.floorMs), ratio, catchUpCpuMs: o.cpu.catchUp, catchUpServerCpuMs: o.cpu.catchUpServer, floorCpuMs: o.cpu.floor,
    floorServerCpuMs: o.cpu.floorServer, cpuRatio, catchUpCpuScaledMs: catchUpCpuMs === null ? null : Math.round(scaled(catchUpCpuMs)), taskRowCatchUpMs: Math.round(rows.ms), taskRowCatchUpScaledMs: Math.round(scaled(rows.ms)), spillMs: Math.round(o.spillMs), floorScaledMs: Math.round(scaled(o.floorMs)), spillScaledMs: Math.round(scaled(o.spillMs)),
    listP99Ms: o.reads.listP99Ms, pendingListP99Ms: o.reads.pendingListP99Ms, readsWorstP99Ms: o.reads.worstP99Ms, eventLoopMaxMs: o.reads.eventLoopMaxMs,
  }));
}

if (STORAGE === 'postgres') await benchPostgres();
else await benchSqlite();
