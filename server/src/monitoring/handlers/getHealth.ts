import type { RequestHandler } from 'express';
import type { HealthReport } from '../../contracts/index.js';
import { sendJson } from '../http/sendJson.js';
import type { MonitoringContext } from '../MonitoringContext.js';

/** Generic reasons only: the route needs no authentication, so it names no file or error text. */
const REASONS = {
  degraded: 'Storage writes are failing or late; changes are kept in memory and retried.',
  failed: 'The engine cannot write to its storage (its database was deleted or replaced).',
} as const;

/**
 * GET /health, no authentication: `{ status: 'ok' | 'degraded' | 'failed', reason? }` from the
 * engine's own health (a monitoring without a local engine answers ok), with a local engine on
 * PostgreSQL its host's clock offset from the database's, and with alert rules the count of alert
 * messages delivered, given up and waiting. 503 when `failed`, so that a probe or a load balancer
 * can act on it; the body is the same.
 */
export function getHealthHandler(ctx: MonitoringContext): RequestHandler {
  return (_req, res) => {
    const health = ctx.engine?.health?.();
    const status = health?.status ?? 'ok';
    const report: HealthReport = status === 'ok' ? { status } : { status, reason: REASONS[status] };
    if (health?.clock !== undefined) report.clock = { offsetMs: health.clock.offsetMs, ok: health.clock.ok };
    const deliveries = ctx.alertStats?.();
    if (deliveries) {
      // Counts only: the route needs no authentication, so webhook addresses and errors stay out.
      report.alerts = { delivered: deliveries.delivered, failed: deliveries.failed + deliveries.dropped, waiting: deliveries.waiting };
      if (deliveries.lastFailure) report.alerts.lastFailureUtc = deliveries.lastFailure.atUtc;
    }
    sendJson(res, status === 'failed' ? 503 : 200, report);
  };
}
