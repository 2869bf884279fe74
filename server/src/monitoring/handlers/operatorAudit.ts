import type { RequestHandler } from 'express';
import { OPERATOR_AUDIT_PARAMS, OPERATOR_ACTIONS, OPERATOR_AUDIT_RESULTS, type QueryParamSpec } from '../../contracts/index.js';
import type { OperatorAuditFilter } from '../../storage/OperatorAuditStore.js';
import { BadRequestError, sendProblem } from '../http/problem.js';
import { QueryParams } from '../http/queryParams.js';
import { sendJson } from '../http/sendJson.js';
import { holdsOperateRole } from '../management/operateRole.js';
import type { MonitoringContext } from '../MonitoringContext.js';

const PARAMS = new Map(OPERATOR_AUDIT_PARAMS.map((p) => [p.name, p]));
const spec = (name: string): QueryParamSpec => PARAMS.get(name) as QueryParamSpec;
const MAX_TEXT = 200;

/** The filters and paging of GET /audit; every bad value is a 400 naming its parameter. */
export function parseOperatorAuditQuery(q: QueryParams): OperatorAuditFilter {
  const errors: Record<string, string[]> = {};
  const attempt = <T>(read: () => T): T | undefined => {
    try {
      return read();
    } catch (err) {
      if (!(err instanceof BadRequestError)) throw err;
      Object.assign(errors, err.errors);
      return undefined;
    }
  };
  const text = (name: string) => {
    const v = q.string(name);
    if (v !== undefined && v.length > MAX_TEXT) errors[name] = [`At most ${MAX_TEXT} characters.`];
    return v;
  };
  const target = text('target');
  const filter: OperatorAuditFilter = {
    actor: text('actor'),
    action: attempt(() => q.enumValue('action', OPERATOR_ACTIONS)),
    // Ids are recorded in lower case (GUIDs as the API normalizes them).
    target: target?.trim().toLowerCase(),
    result: attempt(() => q.enumValue('result', OPERATOR_AUDIT_RESULTS)),
    fromMs: attempt(() => q.date('from')),
    toMs: attempt(() => q.date('to')),
    page: attempt(() => q.intOf(spec('page'))) ?? 1,
    pageSize: attempt(() => q.intOf(spec('pageSize'))) ?? Number(spec('pageSize').default),
  };
  if (filter.fromMs !== undefined && filter.toMs !== undefined && filter.fromMs > filter.toMs) {
    errors.to = ['Must not be before from.'];
  }
  if (Object.keys(errors).length > 0) throw new BadRequestError(errors);
  return filter;
}

/** GET /audit (operate role): the operator audit trail, newest first, filtered and paged. */
export function operatorAuditHandler(ctx: MonitoringContext): RequestHandler {
  return async (req, res) => {
    if (!(await holdsOperateRole(ctx, req, res))) return sendProblem(res, 403, 'The operate role is required to read the operator audit.');
    const filter = parseOperatorAuditQuery(new QueryParams(req));
    if (!ctx.auditStore) return sendProblem(res, 501, 'This store keeps no operator audit (its schema has no operator_audit table).');
    sendJson(res, 200, await ctx.auditStore.list(filter));
  };
}
