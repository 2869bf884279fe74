import express, { type Express } from 'express';
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import type { Monitoring } from '../monitoring/createMonitoring.js';
import { CliError } from './CliError.js';
import { requestLog } from './requestLog.js';

/** Listens with the monitoring mounted; stops gracefully on SIGINT/SIGTERM. */
export async function runHttpServer(
  monitoring: Monitoring,
  settings: { port: number; host: string },
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
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      const force = setTimeout(() => process.exit(0), 10_000);
      force.unref();
      await monitoring.close();
      await new Promise<void>((r) => {
        server.close(() => r());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 2_000).unref();
      });
      await extra.onStop?.();
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
