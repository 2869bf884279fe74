import type { RequestHandler } from 'express';
import type { BulkCountMismatch, BulkFilter } from '../../contracts/index.js';
import { noteAudit } from '../audit/recordAnswers.js';
import { countDiffersTooMuch, parseBulkAction, parseBulkBody } from '../http/bulkRequest.js';
import { BadRequestError } from '../http/problem.js';
import { sendJson } from '../http/sendJson.js';
import { managementActor } from '../management/managementActor.js';
import type { MonitoringContext } from '../MonitoringContext.js';

/** Most rows one bulk action may touch; a larger set must be narrowed by its filter. */
export const MAX_BULK_ROWS = 1_000_000;

/**
 * POST /management/bulk/{requeue|retry|cancel} with `{ filter, expectedCount }`: counts the rows
 * the filter matches now; a count off by more than 5 % of expectedCount answers 409 with the
 * new count and does nothing; a filter matching nothing answers 200 with count 0; otherwise the
 * action starts in the background and the answer is its first progress snapshot (200).
 */
export function bulkActionHandler(ctx: MonitoringContext): RequestHandler {
  return async (req, res) => {
    const action = parseBulkAction(req);
    const { filter, expectedCount } = parseBulkBody(req);
    // The filter as the user sent it (checked above) goes into the operator audit.
    const sentFilter = ((req.body as { filter?: BulkFilter }).filter ?? {}) as BulkFilter;
    noteAudit(res, { bulk: { filter: sentFilter, expectedCount } });
    const tasks = ctx.engine?.tasks;
    if (!tasks) {
      return sendJson(res, 501, { status: 'NotSupported', message: 'Bulk actions need the task engine: this is a standalone registration.' });
    }
    const count = (await ctx.store.listTasks({ ...filter, sortBy: 'CreatedAtUtc', sortDescending: false, page: 1, pageSize: 1 })).totalCount;
    if (count > MAX_BULK_ROWS) {
      throw BadRequestError.of('filter', `The filter matches ${count} rows; a bulk action takes at most ${MAX_BULK_ROWS}. Narrow the filter.`);
    }
    noteAudit(res, { bulk: { filter: sentFilter, expectedCount, count } });
    if (count > 0 && countDiffersTooMuch(expectedCount, count)) {
      const body: BulkCountMismatch = {
        status: 'Conflict',
        message: `The filter now matches ${count} rows, not ${expectedCount}: confirm the new count. Nothing was done.`,
        expectedCount,
        count,
      };
      return sendJson(res, 409, body);
    }
    const ids = count === 0 ? [] : await ctx.store.taskIds(filter, MAX_BULK_ROWS);
    const operation = tasks.startBulk({ action, ids, statuses: filter.statuses, actor: managementActor(req, res) });
    const { operationId, state, processed, succeeded, skipped } = operation;
    noteAudit(res, { bulk: { filter: sentFilter, expectedCount, count, operationId, state, processed, succeeded, skipped } });
    sendJson(res, 200, operation);
  };
}
