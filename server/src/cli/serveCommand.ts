import { accessSync, constants, existsSync } from 'node:fs';
import { resolveOptions, type MonitoringOptions } from '../monitoring/options.js';
import { OptionError } from '../options/OptionError.js';
import { CliError } from './CliError.js';
import { createCliLogger, monitoringLoggerOf, secretValuesOf } from './logging.js';
import { resolveServeSettings } from './serveSettings.js';

/**
 * The monitoring options' own checks, run before the database is opened and the server loaded, so
 * that a bad value answers at once. createMonitoring checks them again and is the one that warns
 * (a short JWT secret, the obsolete enableSwagger), so this check is silent and leaves that option to it.
 */
function checkMonitoringOptions(options: MonitoringOptions): void {
  const { enableSwagger: _warnedByCreateMonitoring, ...rest } = options;
  try {
    resolveOptions({ ...rest, logger: { info: () => undefined, warn: () => undefined } });
  } catch (err) {
    if (err instanceof OptionError) throw new CliError(err.message);
    throw err;
  }
}

/**
 * `serve --db file`: standalone monitoring (read-only) of a SQLite database written by another
 * process; `serve --database postgres://…`: monitoring of a PostgreSQL store shared by engine
 * instances elsewhere (live hub and management through the store).
 * The storage, monitoring and HTTP modules are loaded only once the flags, config file and
 * environment have been read: a usage error answers at once instead of first loading the whole
 * server (most of a start's CPU time).
 */
export async function serveCommand(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  const settings = resolveServeSettings(argv, env, { port: 5080 });
  checkMonitoringOptions(settings.options);
  if (settings.database !== undefined && settings.db !== undefined) {
    throw new CliError('serve takes either --db <file> (SQLite) or --database postgres://… (PostgreSQL), not both.');
  }
  if (settings.database !== undefined) {
    const { servePostgres } = await import('./servePostgres.js');
    return servePostgres(settings);
  }
  if (settings.db === undefined) {
    throw new CliError('serve needs --db <file> (an existing Svc Monitor SQLite database) or --database postgres://… (SVC_MONITOR_DATABASE).');
  }
  const file = settings.db;
  if (!existsSync(file)) throw new CliError(`Database file not found: ${file}`);
  try {
    accessSync(file, constants.R_OK);
  } catch {
    throw new CliError(`Database file is not readable: ${file}`);
  }
  const { openStorage } = await import('../storage/openStorage.js');
  let parts;
  try {
    parts = await openStorage({ backend: 'sqlite', file, readonly: true });
  } catch (err) {
    throw new CliError(`Cannot open ${file} as a Svc Monitor database: ${(err as Error).message}`);
  }
  const [{ createMonitoring }, { runHttpServer }] = await Promise.all([import('../monitoring/createMonitoring.js'), import('./runHttpServer.js')]);
  const logger = createCliLogger(settings.log, { secrets: secretValuesOf(settings.options as Record<string, unknown>) });
  let monitoring;
  try {
    monitoring = createMonitoring({ storage: parts.storage }, { ...settings.options, logger: monitoringLoggerOf(logger), operatorAuditLogger: logger });
  } catch (err) {
    await parts.close();
    if (err instanceof OptionError) throw new CliError(err.message);
    throw err;
  }
  const { port } = await runHttpServer(monitoring, settings, { onStop: () => parts.close(), logger });
  logger.info(`Svc Monitor (standalone, read-only) over ${file}`);
  logger.info(`Dashboard: http://${settings.host === '0.0.0.0' ? 'localhost' : settings.host}:${port}/svc-monitoring`);
  logger.info(`API:       http://${settings.host === '0.0.0.0' ? 'localhost' : settings.host}:${port}/svc-monitoring/api`);
}
