import express from 'express';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine } from '../engine/Engine.js';
import { openStorage, type StorageParts } from '../storage/openStorage.js';
import { createMonitoring } from '../monitoring/createMonitoring.js';
import { OptionError } from '../options/OptionError.js';
import { CliError } from './CliError.js';
import { createCliLogger, engineErrorLogger, logEngineEvents, monitoringLoggerOf, secretValuesOf } from './logging.js';
import { runHttpServer } from './runHttpServer.js';
import { resolveServeSettings } from './serveSettings.js';
import { registerDemoWorkload, DEMO_SAMPLES, type DemoSample } from './demoWorkload.js';
import { openCliPostgres } from './servePostgres.js';

/** Documented demo credentials (README): read admin/admin, operate operator/operator. */
export const DEMO_OPERATOR = { username: 'operator', password: 'operator' };

/**
 * `demo [--port 5080] [--db file | --database postgres://…] [--demo-dispatch-endpoint]`: an engine with sample handlers,
 * an inline recurring task, durable schedules under each misfire policy (one halted),
 * continuous background activity, and the monitoring with management enabled.
 */
export async function demoCommand(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  const settings = resolveServeSettings(argv, env, { port: 5080 }, { demoDispatchEndpoint: 'boolean' });
  const file = settings.db ?? join(tmpdir(), 'svc-monitor-demo.db');
  const magicLinkToken = settings.options.magicLinkToken ?? randomBytes(24).toString('base64url');
  const options = {
    enableManagementEndpoints: true,
    managementUsername: DEMO_OPERATOR.username,
    managementPassword: DEMO_OPERATOR.password,
    enableOpenApiDocument: true,
    enableScalar: true,
    ...settings.options,
    magicLinkToken,
  };
  if (settings.database !== undefined && settings.db !== undefined) {
    throw new CliError('demo takes either --db <file> (SQLite) or --database postgres://… (PostgreSQL), not both.');
  }
  const queues = { default: { concurrency: 4 }, reports: { concurrency: 1 }, mail: { concurrency: 2, capacity: 25 } };
  // The banner below is the demo's instructions to a person (its credentials included), printed as
  // text; everything after it goes through the logger, which never writes a secret.
  let logger = createCliLogger(settings.log, { secrets: [magicLinkToken, ...secretValuesOf(options)] });
  const onError = (err: unknown, where: string) => engineErrorLogger(logger)(err, where);
  let parts: StorageParts;
  if (settings.database !== undefined) {
    // One of possibly many engine instances on a shared PostgreSQL store.
    parts = await openCliPostgres(settings.database);
  } else {
    try {
      parts = await openStorage({ backend: 'sqlite', file });
    } catch (err) {
      throw new CliError(`Cannot open the demo database ${file}: ${(err as Error).message}`);
    }
  }
  const store = parts.engineStore();
  const engine = createEngine({ store, queues, onError });
  logger = logger.child({ engine_instance: store.instanceId });
  const stopPublishing = parts.publishEvents(engine);
  const monitoringSource = { engine, storage: parts.storage };
  const seed = parts.demoSeed();
  const location = parts.describe(parts.backend === 'postgres' ? store.instanceId : undefined);
  const closeStorage = async () => {
    await stopPublishing();
    await store.dispose();
    await parts.close();
  };
  let monitoring;
  try {
    monitoring = createMonitoring(monitoringSource, { ...options, logger: monitoringLoggerOf(logger), operatorAuditLogger: logger });
  } catch (err) {
    await closeStorage();
    if (err instanceof OptionError) throw new CliError(err.message);
    throw err;
  }
  logEngineEvents(engine, logger);
  const workload = await registerDemoWorkload(engine, seed);
  await workload.seedSchedules();
  await engine.start();
  await workload.start();

  const { port } = await runHttpServer(monitoring, settings, {
    configure: (app) => {
      if (settings.extras.demoDispatchEndpoint !== true) return;
      // For end-to-end tests: dispatch one sample task on demand (outside /svc-monitoring).
      app.post('/demo/dispatch', express.json(), async (req, res) => {
        const sample = (req.body as { type?: unknown } | undefined)?.type;
        if (typeof sample !== 'string' || !(DEMO_SAMPLES as readonly string[]).includes(sample)) {
          res.status(400).json({ error: `type must be one of ${DEMO_SAMPLES.join(', ')}` });
          return;
        }
        const id = await workload.dispatch(sample as DemoSample);
        res.json({ id });
      });
    },
    logger,
    onStop: async () => {
      workload.stop();
      await engine.stop({ graceMs: settings.stopGraceMs });
      await closeStorage();
    },
  });
  const host = settings.host === '0.0.0.0' || settings.host === '127.0.0.1' ? 'localhost' : settings.host;
  const base = `http://${host}:${port}/svc-monitoring`;
  console.log('Svc Monitor demo is running.');
  console.log(`Dashboard: ${base}`);
  console.log(`Database:  ${location}`);
  if (options.enableAuthentication !== false) {
    console.log(`Read login:    ${options.username ?? 'admin'} / ${options.password ?? 'admin'}`);
    console.log(`Operate login: ${options.managementUsername} / ${options.managementPassword}  (management endpoints enabled)`);
    console.log(`Magic link:    ${base}/magic#token=${encodeURIComponent(magicLinkToken)}`);
  } else {
    console.log('Authentication is disabled.');
  }
  console.log(`API reference: ${base}/scalar`);
  if (settings.extras.demoDispatchEndpoint === true) {
    console.log(`Dispatch on demand: POST http://${host}:${port}/demo/dispatch {"type": "${DEMO_SAMPLES.join('" | "')}"}`);
  }
  console.log('Press Ctrl+C to stop.');
}
