import { createMonitoring } from '../monitoring/createMonitoring.js';
import { MonitoringOptionError } from '../monitoring/options.js';
import { openStorage, type StorageParts } from '../storage/openStorage.js';
import { CliError } from './CliError.js';
import { createCliLogger, monitoringLoggerOf, secretValuesOf } from './logging.js';
import { runHttpServer } from './runHttpServer.js';
import type { ServeSettings } from './serveSettings.js';

/** Opens the PostgreSQL store named by --database (or SVC_MONITOR_DATABASE); bad input is a CliError. */
export async function openCliPostgres(connectionString: string): Promise<StorageParts> {
  try {
    return await openStorage({ backend: 'postgres', connectionString });
  } catch (err) {
    throw new CliError(`--database: ${(err as Error).message.replace(/^openPostgresStorage: /, '')}`);
  }
}

/** `serve --database postgres://…`: headless monitoring of a store shared by engine instances elsewhere. */
export async function servePostgres(settings: ServeSettings): Promise<void> {
  const parts = await openCliPostgres(settings.database!);
  const logger = createCliLogger(settings.log, { secrets: [...secretValuesOf(settings.options as Record<string, unknown>), settings.database!] });
  let monitoring;
  try {
    monitoring = createMonitoring({ storage: parts.storage }, { ...settings.options, logger: monitoringLoggerOf(logger), operatorAuditLogger: logger });
  } catch (err) {
    await parts.close();
    if (err instanceof MonitoringOptionError) throw new CliError(err.message);
    throw err;
  }
  const { port } = await runHttpServer(monitoring, settings, { onStop: () => parts.close(), logger });
  const host = settings.host === '0.0.0.0' ? 'localhost' : settings.host;
  logger.info(`Svc Monitor over ${parts.describe()}`);
  logger.info(`Dashboard: http://${host}:${port}/svc-monitoring`);
  logger.info(`API:       http://${host}:${port}/svc-monitoring/api`);
}
