import express, { type Express } from 'express';
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import type { Monitoring } from '../monitoring/createMonitoring.js';
import { CliError } from './CliError.js';
import { requestLog } from './requestLog.js';

/** How long a stop waits for open HTTP requests before it closes their connections. */
const OPEN_REQUESTS_WAIT_MS = 2_000;
/** Time beyond the drain delay and the grace before a stuck stop gives up (exit 1). */
const STOP_MARGIN_MS = 5_000;

export interface StopSettings {
  /** How long readiness answers 503 before the server stops accepting connections. */
  drainDelayMs: number;
  /** How long the host's own stop (onStop: the engine) may take; the stop gives up past it (plus a margin). */
  stopGraceMs: number;
}

/**
 * Listens with the monitoring mounted; on SIGINT/SIGTERM drains in this order and exits 0:
 * 1. readiness answers 503 (monitoring.drain()), and stays so for `drainDelayMs` while every
 *    other request is still served, so that load balancers stop sending work;
 * 2. the server stops accepting connections and closes the idle keep-alive ones;
 * 3. the hub closes its connections with a Close message that allows a reconnect (clients move
 *    to another replica);
 * 4. open requests get up to 2 s, then their connections are closed;
 * 5. `onStop` (the engine's stop with its grace: running tasks finish or are handed back, then
 *    the storage closes).
 * A stop still running after drain delay + grace + 5 s exits 1.
 */
export async function runHttpServer(
  monitoring: Monitoring,
  settings: { port: number; host: string } & StopSettings,
  extra: { configure?: (app: Express) => void; onStop?: () => Promise<void> | void; logger?: Logger } = {},
): Promise<{ server: Server; port: number; stop(): Promise<void> }> {
  const app = express();
  app.disable('x-powered-by');
  if (extra.logger) app.use(requestLog(extra.logger));
  extra.configure?.(app);
  app.use(monitoring.router);
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(settings.port, settings.host);
    s.once('listening', () => resolve(s));
    s.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'EADDRINUSE' ? new CliError(`Port ${settings.port} is already in use.`) : err),
    );
  });
  monitoring.attach(server);
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : settings.port;
  const log = (step: string, startedAt: number) => {
    const line = `stop: ${step} (+${Date.now() - startedAt} ms)`;
    if (extra.logger) extra.logger.info(line);
    else console.log(line);
  };
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      const startedAt = Date.now();
      const force = setTimeout(() => {
        console.error(`stop: not finished within ${settings.drainDelayMs + settings.stopGraceMs + STOP_MARGIN_MS} ms: exiting`);
        process.exit(1);
      }, settings.drainDelayMs + settings.stopGraceMs + STOP_MARGIN_MS);
      force.unref();
      monitoring.drain();
      log('readiness off', startedAt);
      if (settings.drainDelayMs > 0) await new Promise((r) => setTimeout(r, settings.drainDelayMs));
      const closed = new Promise<void>((r) => server.close(() => r()));
      server.closeIdleConnections();
      log('not accepting connections', startedAt);
      await monitoring.close();
      log('hub connections closed (reconnect allowed)', startedAt);
      const closeAll = setTimeout(() => server.closeAllConnections(), OPEN_REQUESTS_WAIT_MS);
      await closed;
      clearTimeout(closeAll);
      log('HTTP server closed', startedAt);
      await extra.onStop?.();
      log('engine and storage stopped', startedAt);
    })());
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      if (extra.logger) extra.logger.info(`${signal} received: stopping…`);
      else console.log(`\n${signal} received: stopping…`);
      void stop().then(
        () => process.exit(0),
        (err: unknown) => {
          console.error(err);
          process.exit(1);
        },
      );
    });
  }
  return { server, port, stop };
}
