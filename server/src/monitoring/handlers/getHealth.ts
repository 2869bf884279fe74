import type { RequestHandler } from 'express';
import { sendJson } from '../http/sendJson.js';
import type { MonitoringContext } from '../MonitoringContext.js';

/** Generic reasons only: the route needs no authentication, so it names no file or error text. */
const REASONS = {
  degraded: 'Storage writes are failing or late; changes are kept in memory and retried.',
  failed: 'The engine cannot write to its storage (its database was deleted or replaced).',
} as const;

/**
 * GET /health, no authentication: `{ status: 'ok' | 'degraded' | 'failed', reason? }` from the
 * engine's own health (a monitoring without a local engine answers ok).
 */
export function getHealthHandler(ctx: MonitoringContext): RequestHandler {
  return (_req, res) => {
    const status = ctx.engine?.health?.().status ?? 'ok';
    sendJson(res, 200, status === 'ok' ? { status } : { status, reason: REASONS[status] });
  };
}
