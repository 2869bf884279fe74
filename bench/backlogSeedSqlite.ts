// Seeds a SQLite store with the backlog of bench:schedules (BENCH_SCHEDULES minute schedules down
// 24 h, compact rows) into the file named by the first argument, for bench/backlogReadsOnly.ts.
import { createScheduleManager } from '../server/src/engine/schedules/index.js';
import { createSqliteEngineStore } from '../server/src/storage/sqlite/createSqliteEngineStore.js';
import { openSqliteStorage } from '../server/src/storage/sqlite/openSqliteStorage.js';
import { scheduleInternals } from '../test/fixtures/scheduleInternals.js';
import { backlogScheduleShape } from './backlogReads.js';

const SCHEDULES = Number(process.env.BENCH_SCHEDULES ?? 1000);
const T0 = Date.parse('2026-02-02T10:00:30Z');
const DAY = 86_400_000;
const file = process.argv[2];
if (!file) throw new Error('usage: tsx bench/backlogSeedSqlite.ts <file>');
const clock = { now: T0 };
const storage = openSqliteStorage({ file });
const manager = createScheduleManager(scheduleInternals(createSqliteEngineStore(storage), () => clock.now, []));
for (let i = 0; i < SCHEDULES; i++) {
  await manager.upsert({ key: `minute-${i}`, ...backlogScheduleShape(i), cron: '* * * * *', misfire: { policy: 'ReplayAll', overflowCap: 2000 } });
}
clock.now = T0 + DAY;
const t = performance.now();
const outcome = await manager.materializer.drain(clock.now);
console.log(`seeded ${outcome.written} occurrences in ${(performance.now() - t).toFixed(0)} ms`);
storage.close();
