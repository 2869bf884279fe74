import express from 'express';
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { createMonitoring } from '../../../server/src/monitoring/createMonitoring.js';
import type { MonitoringOptions } from '../../../server/src/monitoring/options.js';
import { openSqliteStorage } from '../../../server/src/storage/sqlite/openSqliteStorage.js';

/** One environment for the desktop tests: the real monitoring package on a loopback port. */
export interface MonitoringHost {
  baseUrl: string;
  close(): Promise<void>;
}

/**
 * Standalone registration (storage only: the same API and auth, no hub) over a fresh SQLite
 * file. Used where the test needs options the `demo` CLI does not expose (short-lived
 * tokens, rate limit).
 */
export async function startStandaloneHost(dir: string, options: MonitoringOptions = {}, port = 0): Promise<MonitoringHost> {
  const storage = openSqliteStorage({ file: join(dir, `standalone-${Math.random().toString(36).slice(2)}.db`) });
  const monitoring = createMonitoring({ storage }, { enableUI: false, logger: { info: () => undefined, warn: () => undefined }, ...options });
  const app = express();
  app.use(monitoring.router);
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(port, '127.0.0.1', () => resolve(s));
  });
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      await monitoring.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      storage.close();
    },
  };
}

export function cliAvailable(): boolean {
  return existsSync('server/src/cli.ts');
}
