import type { RequestHandler } from 'express';
import { NotFoundError } from '../http/problem.js';
import { parseGuid } from '../http/queryParams.js';
import { sendJson } from '../http/sendJson.js';
import type { MonitoringContext } from '../MonitoringContext.js';

/** GET /management/bulk/{operationId}: the progress of a bulk action (kept in memory by the engine). */
export function bulkStatusHandler(ctx: MonitoringContext): RequestHandler {
  return (req, res) => {
    const id = parseGuid('operationId', (req.params as Record<string, string | undefined>).operationId ?? '');
    const operation = ctx.engine?.tasks?.bulkStatus(id);
    if (!operation) throw new NotFoundError(`No bulk operation ${id} on this host (operations are kept in memory until restart).`);
    sendJson(res, 200, operation);
  };
}
