// One worker process of bench/engine-pg.ts: a Svc Monitor engine on the PostgreSQL store, or a
// graphile-worker runner, concurrency 4, handling the no-op task. Prints "ready"; stops on SIGTERM.
// argv: 'svc' | 'graphile', connectionString.
import { run } from 'graphile-worker';
import { createEngine } from '../server/src/engine/Engine.js';
import { createPostgresEngineStore } from '../server/src/storage/postgres/createPostgresEngineStore.js';
import { openPostgresStorage } from '../server/src/storage/postgres/openPostgresStorage.js';

const [kind, connectionString] = process.argv.slice(2);
if (kind === 'svc') {
  const storage = await openPostgresStorage({ connectionString: connectionString!, poolSize: 4 });
  // The durable default: every group commit waits for the WAL flush. BENCH_PG_ASYNC=1: commits that only claim and end runs do not.
  const store = createPostgresEngineStore(storage, { synchronousRunCommits: process.env['BENCH_PG_ASYNC'] !== '1' });
  const engine = createEngine({ store, queues: { default: { concurrency: 4 } }, auditLevel: 'Full', pollIntervalMs: 50, onError: () => undefined });
  engine.handle('Bench.NoOp', () => undefined);
  await engine.start();
  process.stdout.write('ready\n');
  process.once('SIGTERM', () => void engine.stop().then(() => store.dispose()).then(() => storage.close()).then(() => process.exit(0)));
} else {
  const runner = await run({
    connectionString: connectionString!,
    concurrency: 4,
    noHandleSignals: true,
    pollInterval: 50,
    logger: undefined,
    taskList: { noop: async () => undefined },
  });
  process.stdout.write('ready\n');
  process.once('SIGTERM', () => void runner.stop().then(() => process.exit(0)));
}
