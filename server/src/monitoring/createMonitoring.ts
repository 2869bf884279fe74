import { BASE_ROUTES, BULK_PROGRESS_TARGET, type BulkOperation } from '../contracts/index.js';
import { Router } from 'express';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { MonitoringStore } from '../storage/MonitoringStore.js';
import { monitoringParts, type AnyStorage, type SqliteHandle } from '../storage/openStorage.js';
import { createAlerting, type Alerting } from './alerts/createAlerting.js';
import { createApiRouter } from './apiRouter.js';
import { OperatorAuditLog } from './audit/OperatorAuditLog.js';
import { TokenService } from './auth/TokenService.js';
import { oidcRouter } from './auth/oidc/oidcRouter.js';
import { problemErrorHandler } from './http/errorHandler.js';
import { sendProblem } from './http/problem.js';
import { createHub, type Hub, type HubOptions } from '../hub/createHub.js';
import { rejectUpgrade } from '../hub/httpErrors.js';
import { managementEnabledGate } from './management/managementGate.js';
import { BASE_PATH, HUB_PATH, type MonitoringContext, type MonitoringEngine } from './MonitoringContext.js';
import { ClientAddressResolver } from './network/clientAddress.js';
import { corsPolicy } from './network/corsPolicy.js';
import { noStore, securityHeaders } from './network/securityHeaders.js';
import { IpAllowList } from './network/IpAllowList.js';
import { ipAllowListMiddleware } from './network/ipAllowListMiddleware.js';
import { createMetrics, type MonitoringMetrics } from './metrics/createMetrics.js';
import { metricsRouter } from './metrics/metricsRouter.js';
import { openApiRouter } from './openapi/openApiRouter.js';
import { probeRouter, type DrainState } from './probes/probeRouter.js';
import { MonitoringOptionError, resolveOptions, type MonitoringOptions } from './options.js';
import { dashboardRouter, defaultWebRoot } from './ui/serveDashboard.js';

/** A storage the monitoring can read: anything holding an open better-sqlite3 database. */
export type MonitoringStorage = SqliteHandle;

export type MonitoringSource =
  | { engine: MonitoringEngine & { storage?: AnyStorage }; storage?: AnyStorage; store?: MonitoringStore }
  | { engine?: undefined; storage: AnyStorage; store?: MonitoringStore };

export interface Monitoring {
  /** Mount on the host app: everything lives under /svc-monitoring, nothing outside. */
  router: Router;
  /** Adds WebSocket upgrades of the hub to the host's HTTP server. */
  attach(server: Server): void;
  /**
   * Readiness (GET /svc-monitoring/health/ready) answers 503 from now on: the first step of a
   * stop, so that load balancers and orchestrators send no new work while the host drains.
   */
  drain(): void;
  /** Resolves once everything is wired (immediately; kept for hosts that await it). */
  ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * `{engine}` is the full registration (hub events, management), `{storage}` the
 * standalone one (same read API, no hub, management answers NotSupported).
 */
export function createMonitoring(source: MonitoringSource, rawOptions: MonitoringOptions = {}): Monitoring {
  if (typeof source !== 'object' || source === null) throw new MonitoringOptionError('source', 'pass { engine } or { storage }');
  const options = resolveOptions(rawOptions);
  // A store shared by many processes: its events reach this hub and its management operations
  // work here even without a local engine.
  const parts = monitoringParts([source.storage, source.engine?.storage], source.engine, source.store);
  if (parts === undefined) {
    throw new MonitoringOptionError(source.engine ? 'engine' : 'storage', 'needs an open SQLite storage ({ db }); pass { engine, storage } or { storage }');
  }
  const store = parts.store;
  const tokens = new TokenService(options.jwtSecret, options.jwtIssuer, options.jwtAudience, options.jwtExpirationHours, options.now);
  const engine: MonitoringEngine | undefined = parts.sharedEngine ?? source.engine;
  const clients = new ClientAddressResolver(options.trustedProxies);
  const opened = parts.audit;
  const auditStore = opened?.store;
  if (opened === undefined || !opened.writable) {
    options.logger.info(
      `svc-monitoring: the store ${opened === undefined ? 'has no operator_audit table' : 'is open read-only'}: operator audit records go to the log only.`,
    );
  }
  let alerting: Alerting | undefined;
  const audit = new OperatorAuditLog({
    store: opened?.writable ? auditStore : undefined,
    clients,
    lines: options.operatorAuditLogger,
    now: options.now,
    retentionDays: options.operatorAuditRetentionDays,
    onRecorded: (entry) => alerting?.operatorAction(entry),
    warn: (m) => options.logger.warn(m),
  });
  const ctx: MonitoringContext = { store, options, tokens, engine, hubEnabled: engine !== undefined, clients, audit, auditStore };
  const allowList = new IpAllowList(options.allowedIpAddresses);

  if (options.enableAuthentication && options.jwtSecretGenerated) {
    options.logger.warn(
      'svc-monitoring: no jwtSecret configured: generated a random 512-bit secret for this process; tokens become invalid at restart.',
    );
  }

  let metrics: MonitoringMetrics | undefined;
  const api = createApiRouter(ctx, (route, status) => metrics?.countRequest(route, status));
  const base = Router();
  base.use(securityHeaders());
  if (options.enableCors) base.use(corsPolicy(options.corsAllowedOrigins));
  base.use('/api', noStore());
  // The management-disabled 404 comes before the IP check: a disabled management surface does not exist.
  base.use('/api/management', managementEnabledGate(ctx));
  // The probes come before the allow-list: orchestrators probe from addresses operators rarely list.
  const drainState: DrainState = { draining: false };
  base.use(probeRouter(store, drainState, engine));
  base.use(ipAllowListMiddleware(allowList, clients));

  const access: HubOptions['access'] = (req, accessToken) => {
    const client = clients.resolve(req);
    if (!client.ok) return { ok: false, status: 400, message: client.detail };
    if (!allowList.allows(client.address)) {
      return { ok: false, status: 403, message: 'The client address is not in the allowed IP addresses.' };
    }
    if (!options.enableAuthentication) return { ok: true };
    if (accessToken === undefined || accessToken === '') return { ok: false, status: 401, message: 'A bearer token is required.' };
    const r = tokens.verify(accessToken);
    return r.ok ? { ok: true, expiresAtMs: r.principal.expiresAtMs } : { ok: false, status: 401, message: r.reason, expired: r.expired };
  };
  // Full registration: the SignalR-protocol hub on the engine's events; standalone: none.
  const hub: Hub | undefined = engine
    ? createHub({
        path: HUB_PATH,
        access,
        events: engine,
        includeExecutionLogs: options.includeExecutionLogs,
        clientKey: (req) => clients.addressOf(req),
        maxConnectionsPerClient: options.hubMaxConnectionsPerClient,
        maxConnections: options.hubMaxConnections,
      })
    : undefined;
  // Bulk actions report progress to hub clients as `BulkProgress` invocations.
  const bulkProgress = hub ? (progress: BulkOperation) => hub.broadcastInvocation(BULK_PROGRESS_TARGET, progress) : undefined;
  if (bulkProgress) engine?.tasks?.onBulkProgress(bulkProgress);
  // A bulk action's record takes the counts its operation reached when it ends.
  const auditBulk = (progress: BulkOperation) => audit.bulkProgress(progress);
  engine?.tasks?.onBulkProgress(auditBulk);
  audit.start();
  const ready = Promise.resolve();
  // Per-process families read this process's engine only (on PostgreSQL the monitoring's engine
  // view also relays other instances' events); the gauges read the store. On PostgreSQL one
  // instance (an advisory lock) evaluates the cluster's alert rules and exports the store's gauges.
  const leadership = parts.sharedEngine && (options.alerts.length > 0 || options.enableMetrics) ? parts.leadership() : undefined;
  alerting =
    options.alerts.length > 0
      ? createAlerting({
          rules: options.alerts,
          store,
          engine: source.engine,
          ...(parts.sharedEngine ? { events: engine, leadership } : {}),
          states: parts.alertStates,
          publicUrl: options.publicUrl,
          logger: options.logger,
          now: options.now,
        })
      : undefined;
  const alerts = alerting;
  if (alerts) ctx.alertStats = () => alerts.stats();
  metrics = options.enableMetrics
    ? createMetrics({
        store,
        engine: source.engine,
        hub,
        alerts: alerting,
        typeLabelLimit: options.metricsTypeLabelLimit,
        now: options.now,
        ...(leadership && { storeGauges: () => leadership.isLeader() }),
      })
    : undefined;

  base.use('/hub', (req, res, next) => {
    if (hub) return hub.router(req, res, next);
    sendProblem(res, 404, 'No event hub: this is a standalone registration (poll the API).');
  });
  base.use('/api', api.router);
  base.use('/auth/oidc', oidcRouter(ctx));
  if (metrics) base.use(metricsRouter(metrics, tokens, options));
  else base.use(BASE_ROUTES['metrics.scrape'].path, (_req, res) => sendProblem(res, 404, 'Metrics are turned off on this host (enableMetrics).'));
  if (options.enableOpenApiDocument) base.use(openApiRouter(options.enableScalar));
  if (options.enableUI) base.use(dashboardRouter(options.webRoot ?? defaultWebRoot()));
  base.use((req, res) => sendProblem(res, 404, `Nothing at ${req.originalUrl.split('?')[0]}.`));
  base.use(problemErrorHandler((m) => options.logger.warn(m)));

  const router = Router();
  router.use(BASE_PATH, base);

  const upgradeListeners = new Map<Server, (req: IncomingMessage, socket: Duplex, head: Buffer) => void>();
  return {
    router,
    ready,
    drain() {
      drainState.draining = true;
    },
    attach(server: Server) {
      if (upgradeListeners.has(server)) return;
      const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
        const url = req.url ?? '';
        const onHubPath = url === HUB_PATH || url.startsWith(`${HUB_PATH}?`) || url.startsWith(`${HUB_PATH}/`);
        if (onHubPath && hub && hub.handleUpgrade(req, socket, head)) return;
        const underBase = url === BASE_PATH || url.startsWith(`${BASE_PATH}/`) || url.startsWith(`${BASE_PATH}?`);
        // Outside the base path the host's own upgrade listeners (if any) answer; with none, the
        // socket would stay open forever, so it is refused here.
        if (!underBase && server.listenerCount('upgrade') > 1) return;
        rejectUpgrade(socket, 404, onHubPath ? 'No event hub: this is a standalone registration (poll the API).' : 'No WebSocket endpoint here.', req);
      };
      upgradeListeners.set(server, onUpgrade);
      server.on('upgrade', onUpgrade);
    },
    async close() {
      api.close();
      for (const [server, listener] of upgradeListeners) server.off('upgrade', listener);
      upgradeListeners.clear();
      if (bulkProgress) engine?.tasks?.offBulkProgress(bulkProgress);
      engine?.tasks?.offBulkProgress(auditBulk);
      await audit.close();
      metrics?.close();
      await alerting?.close();
      await leadership?.close();
      if (hub) await hub.close();
    },
  };
}
