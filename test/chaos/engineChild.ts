// One life of an engine process under the fault-injection harness (test/chaos/runChaos.ts).
// Its settings come as one JSON text in SVC_CHAOS (see ChildSettings). It serves the monitoring
// API (management on, one operator login shared by every process: API_ACCESS) on a free port and prints "ready <port> <instanceId>".
// Every handler begin and end, every run event, every dispatch, every lapse of its lease and this
// process's fenced-write count go to its own append-only log file, one JSON line each, written synchronously (so a
// line written before a SIGKILL is kept), timed by process.hrtime against the harness's origin:
// CLOCK_MONOTONIC, one reference for every process of the machine, untouched by the shifted
// wall clock (test/fixtures/shiftedClock.mjs).
// Handlers ignore their abort signal: a stop's grace or a cancel never cuts one short.
// The harness sends work over the IPC channel: { id, op: 'dispatch' | 'cancel' | 'schedule', ... };
// the answer is { id, result } or { id, error }.
import express from 'express';
import { appendFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createEngine, createMonitoring, openSqliteStorage, type Engine } from '../../server/src/index.js';
import { publishEngineEvents } from '../../server/src/storage/postgres/events/publishEngineEvents.js';
import { createPostgresEngineStore } from '../../server/src/storage/postgres/createPostgresEngineStore.js';
import { openPostgresStorage } from '../../server/src/storage/postgres/openPostgresStorage.js';
import { API_ACCESS, type ChildCommand, type ChildSettings, type LogLine } from './protocol.js';

const settings = JSON.parse(process.env.SVC_CHAOS ?? '{}') as ChildSettings;
const origin = BigInt(settings.originNs);
const now = (): number => Number((process.hrtime.bigint() - origin) / 1000n);
const log = (line: Omit<LogLine, 't' | 'proc'>): void => appendFileSync(settings.logFile, `${JSON.stringify({ ...line, proc: settings.proc, t: now() })}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** What the engine reports (EngineOptions.onError), kept in the log to explain a violation; not checked. */
const onError = (err: unknown, where: string): void => log({ k: 'error', where, message: err instanceof Error ? err.message : String(err) });

let engine: Engine;
let closeStorage: () => Promise<void>;
let instanceId = settings.proc;
let stopPublishing: () => Promise<void> = async () => undefined;
let monitoringSource: Parameters<typeof createMonitoring>[0];
if (settings.backend === 'postgres') {
  const storage = await openPostgresStorage({ connectionString: settings.location, poolSize: 3 });
  const store = createPostgresEngineStore(storage, { leaseMs: settings.leaseMs });
  instanceId = store.instanceId;
  // A lapse of this life's lease (its heartbeat not written within the lease) is a lost lease for
  // the checks, as a pause past it is: its rows may rightly have been taken meanwhile.
  store.onLeaseLost((lapse) => {
    log({ k: 'leaseLost', sinceUs: Math.round(lapse.sinceRenewalMs * 1000) });
    return [];
  });
  engine = createEngine({ store, pollIntervalMs: 50, maxAbandoned: 50, queues: { default: { concurrency: 4 } }, onError });
  stopPublishing = publishEngineEvents(engine, storage);
  closeStorage = async () => {
    await store.dispose();
    await storage.close();
  };
  monitoringSource = { engine, storage };
} else {
  const storage = openSqliteStorage({ file: settings.location });
  engine = createEngine({ storage, pollIntervalMs: 50, maxAbandoned: 50, queues: { default: { concurrency: 4 } }, onError });
  closeStorage = async () => storage.close();
  monitoringSource = { engine, storage };
}

/** A handler's body: its begin and end logged around `ms` of work that ignores ctx.signal. */
const work = (fails: (attempt: number) => boolean) => async (request: { ms?: number }, ctx: { taskId: string; attempt: number }) => {
  log({ k: 'begin', task: ctx.taskId, attempt: ctx.attempt });
  await sleep(request.ms ?? 50);
  const failed = fails(ctx.attempt);
  log({ k: 'end', task: ctx.taskId, attempt: ctx.attempt, outcome: failed ? 'Failed' : 'Completed' });
  if (failed) throw new Error(`chaos: attempt ${ctx.attempt} refused`);
};
engine.handle('Chaos.Work', work(() => false));
engine.handle('Chaos.Flaky', work((attempt) => attempt === 1), { retry: { attempts: 2, backoffMs: 30, backoff: 'fixed' } });
engine.handle('Chaos.Doomed', work(() => true));
engine.handle('Chaos.Tick', work(() => false));
engine.on('event', (e) => log({ k: 'event', task: e.taskId, kind: e.kind }));

const monitoring = createMonitoring(monitoringSource, {
  ...API_ACCESS.options, enableManagementEndpoints: true, loginRateLimit: false, logger: { warn: () => undefined, info: () => undefined },
});
const app = express();
app.use(monitoring.router);
const server = app.listen(0, '127.0.0.1');
await new Promise((r) => server.once('listening', r));
monitoring.attach(server);

const healthTimer = setInterval(() => log({ k: 'health', stale: engine.health().staleRunWrites }), 250);
await engine.start();
log({ k: 'started', instanceId, pid: process.pid });
process.stdout.write(`ready ${(server.address() as AddressInfo).port} ${instanceId}\n`);

/** An answer to the harness, unless the channel is closed already (a command that ends after the stop's disconnect). */
const answer = (message: { id: number; result?: unknown; error?: string }): void => {
  if (process.connected) process.send?.(message);
};
process.on('message', (raw) => {
  const command = raw as ChildCommand;
  void (async () => {
    try {
      let result: unknown;
      if (command.op === 'dispatch') {
        const ids: string[] = [];
        for (let i = 0; i < command.count; i++) {
          const id = await engine.dispatch(command.type, { ms: command.ms });
          log({ k: 'dispatched', task: id, type: command.type });
          ids.push(id);
        }
        result = ids;
      } else if (command.op === 'cancel') {
        result = await engine.cancel(command.task);
        log({ k: 'cancel', task: command.task, result: String(result) });
      } else {
        result = await engine.schedules.upsert({ key: command.key, type: 'Chaos.Tick', request: { ms: command.ms }, every: command.every, misfire: { policy: 'ReplayAll' } });
        log({ k: 'schedule', task: String(result) });
      }
      answer({ id: command.id, result });
    } catch (err) {
      answer({ id: command.id, error: String(err) });
    }
  })();
});

// A graceful stop with a short grace; handlers that ignore their abort keep the process alive
// until they end (the process exits when nothing is left to run), as a host's would.
process.once('SIGTERM', () => {
  void (async () => {
    log({ k: 'stopping' });
    await engine.stop({ graceMs: settings.graceMs });
    clearInterval(healthTimer);
    log({ k: 'health', stale: engine.health().staleRunWrites });
    log({ k: 'stopped' });
    await stopPublishing();
    await monitoring.close();
    server.closeAllConnections();
    server.close();
    await closeStorage();
    process.disconnect?.();
  })();
});
