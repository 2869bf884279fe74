// Benchmark of durable schedules (issue 4): `npm run bench:schedules`.
// 1. 1,000 every-minute durable schedules (ReplayAll, cap 2,000), engine down 24 h: time for the
//    restarted engine's materializer to plan and write every catch-up occurrence (1.44 M rows,
//    each with its Pending status audit and read-model triggers) into a file database.
// 2. The counting bound: a per-second cron down for one year (window 400 d) → halt with
//    detectedAtLeast = 100,000, isExact = false.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SvcEvent } from '../server/src/contracts/index.js';
import type { EngineInternals } from '../server/src/engine/EngineInternals.js';
import { createScheduleManager } from '../server/src/engine/schedules/index.js';
import { createSqliteEngineStore } from '../server/src/storage/sqlite/createSqliteEngineStore.js';
import { openSqliteStorage } from '../server/src/storage/sqlite/openSqliteStorage.js';
import type { SqliteStorage } from '../server/src/storage/Storage.js';

const SCHEDULES = Number(process.env.BENCH_SCHEDULES ?? 1000);
const T0 = Date.parse('2026-02-02T10:00:30Z');
const DAY = 86_400_000;

function internalsFor(storage: SqliteStorage, clock: { now: number }, events: SvcEvent[]): EngineInternals {
  return {
    store: createSqliteEngineStore(storage),
    reportError: (err) => {
      throw err;
    },
    now: () => clock.now,
    emit: (e) => void events.push(e),
    wake: () => {},
    addTicker: () => {},
    defaultAuditLevel: 'Full',
    handlerNameOf: (type) => `${type}Handler`,
    resolveQueue: (q) => q ?? 'default',
    isRunning: () => true,
  };
}

const dir = mkdtempSync(join(tmpdir(), 'bench-schedules-'));
const file = join(dir, 'tasks.db');
try {
  const clock = { now: T0 };
  const events: SvcEvent[] = [];
  let storage = openSqliteStorage({ file });
  let db = storage.db;
  let manager = createScheduleManager(internalsFor(storage, clock, events));
  for (let i = 0; i < SCHEDULES; i++) {
    await manager.upsert({ key: `minute-${i}`, type: 'Bench.EveryMinute', cron: '* * * * *', misfire: { policy: 'ReplayAll', overflowCap: 2000 } });
  }
  storage.close();

  // restart 24 h later
  clock.now = T0 + DAY;
  storage = openSqliteStorage({ file });
  db = storage.db;
  manager = createScheduleManager(internalsFor(storage, clock, events));
  const started = performance.now();
  const outcome = await manager.materializer.drain(clock.now);
  const catchUpMs = performance.now() - started;
  const occurrences = db.prepare('SELECT COUNT(*) FROM tasks WHERE parent_task_id IS NOT NULL').pluck().get() as number;
  const halted = db.prepare('SELECT COUNT(*) FROM tasks WHERE halt IS NOT NULL').pluck().get() as number;
  console.log(`catch-up: ${SCHEDULES} schedules, ${occurrences} occurrences (${outcome.written} written by this pass, ${halted} halted) in ${catchUpMs.toFixed(0)} ms = ${Math.round(occurrences / (catchUpMs / 1000))} occurrences/s; db ${(statSync(file).size / 1e6).toFixed(0)} MB`);

  // steady state right after: the next tick with 1.44 M Pending occurrences in the table
  const idleStarted = performance.now();
  await manager.materializer.tick(clock.now + 500);
  console.log(`next tick after the catch-up (nothing due): ${(performance.now() - idleStarted).toFixed(2)} ms`);

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
  console.log(`targets: catch-up < 60000 ms (${catchUpMs < 60_000 ? 'met' : 'MISSED'}), bound < 1000 ms (${boundCountMs < 1000 ? 'met' : 'MISSED'})`);
  console.log(JSON.stringify({ bench: 'schedules', schedules: SCHEDULES, occurrences, catchUpMs: Math.round(catchUpMs), boundCountMs: Math.round(boundCountMs * 10) / 10 }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
