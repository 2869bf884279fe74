// The backlog reads of bench:schedules (bench/backlogReads.ts) without the rest of that bench, so
// that two versions of the code can be measured one after the other on backlogs of their own:
//   tsx bench/backlogReadsAlone.ts seed sqlite <file> | seed postgres <database>
//   tsx bench/backlogReadsAlone.ts reads sqlite <file> | reads postgres <database>   (prints JSON)
// `seed` writes BENCH_SCHEDULES (1,000) minute schedules down 24 h, caught up as compact rows;
// `reads` measures BENCH_READ_ROUNDS (20) rounds of every read. A PostgreSQL database is created
// by `seed` on BENCH_PG's server and left for `reads`: drop it when done.
import { loadavg } from 'node:os';
import { createScheduleManager } from '../server/src/engine/schedules/index.js';
import type { EngineStore } from '../server/src/storage/EngineStore.js';
import type { ReadDb } from '../server/src/storage/common/reads/ReadDb.js';
import { scheduleInternals } from '../test/fixtures/scheduleInternals.js';
import { backlogScheduleShape, measureBacklogReads } from './backlogReads.js';
import { admin } from './benchDatabase.js';

const [action, backend, target] = process.argv.slice(2);
if ((action !== 'seed' && action !== 'reads') || (backend !== 'sqlite' && backend !== 'postgres') || !target) {
  throw new Error('usage: tsx bench/backlogReadsAlone.ts seed|reads sqlite|postgres <file or database>');
}
const SCHEDULES = Number(process.env.BENCH_SCHEDULES ?? 1000);
const ROUNDS = Number(process.env.BENCH_READ_ROUNDS ?? 20);
const PG_ADMIN = process.env.BENCH_PG ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const T0 = Date.parse('2026-02-02T10:00:30Z');
const DAY = 86_400_000;

interface Opened {
  store: EngineStore;
  readDb: ReadDb;
  close(): Promise<void>;
}

async function open(): Promise<Opened> {
  if (backend === 'sqlite') {
    const { openSqliteStorage } = await import('../server/src/storage/sqlite/openSqliteStorage.js');
    const { createSqliteEngineStore } = await import('../server/src/storage/sqlite/createSqliteEngineStore.js');
    const { sqliteReadDb } = await import('../server/src/storage/sqlite/monitoring/sqliteReadDb.js');
    const storage = openSqliteStorage({ file: target! });
    return { store: createSqliteEngineStore(storage), readDb: sqliteReadDb(storage.db), close: async () => storage.close() };
  }
  const { openPostgresStorage } = await import('../server/src/storage/postgres/openPostgresStorage.js');
  const { createPostgresEngineStore } = await import('../server/src/storage/postgres/createPostgresEngineStore.js');
  const { postgresReadDb } = await import('../server/src/storage/postgres/monitoring/postgresReadDb.js');
  const url = new URL(PG_ADMIN);
  url.pathname = `/${target}`;
  const storage = await openPostgresStorage({ connectionString: url.toString(), rollupIntervalMs: 0 });
  const store = createPostgresEngineStore(storage);
  return {
    store,
    readDb: postgresReadDb(storage),
    close: async () => {
      await store.dispose?.();
      await storage.close();
    },
  };
}

if (action === 'seed') {
  if (backend === 'postgres') await admin(PG_ADMIN, `CREATE DATABASE "${target}"`);
  const clock = { now: T0 };
  const opened = await open();
  const manager = createScheduleManager(scheduleInternals(opened.store, () => clock.now, []));
  for (let i = 0; i < SCHEDULES; i++) {
    await manager.upsert({ key: `minute-${i}`, ...backlogScheduleShape(i), cron: '* * * * *', misfire: { policy: 'ReplayAll', overflowCap: 2000 } });
  }
  clock.now = T0 + DAY;
  const t = performance.now();
  const outcome = await manager.materializer.drain(clock.now);
  console.log(`seeded ${outcome.written} occurrences in ${(performance.now() - t).toFixed(0)} ms; load ${loadavg()[0]!.toFixed(1)}`);
  await opened.close();
} else {
  const opened = await open();
  const load = loadavg()[0]!;
  const reads = await measureBacklogReads(opened.readDb, T0 + DAY, ROUNDS);
  console.log(JSON.stringify({ load: Math.round(((load + loadavg()[0]!) / 2) * 10) / 10, ...reads }));
  await opened.close();
}
