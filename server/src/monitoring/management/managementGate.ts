import type { RequestHandler } from 'express';
import { bearerToken, sendUnauthorized } from '../auth/bearer.js';
import { sendProblem } from '../http/problem.js';
import type { MonitoringContext } from '../MonitoringContext.js';
import { provenanceAllows } from './provenance.js';

/** Any path under /management answers 404 while the endpoints are disabled (the first gate, before the IP check). */
export function managementEnabledGate(ctx: MonitoringContext): RequestHandler {
  return (_req, res, next) => {
    if (ctx.options.enableManagementEndpoints) return next();
    sendProblem(res, 404, 'Management endpoints are not enabled on this host.');
  };
}

/**
 * After the IP allow-list: the browser provenance check → the `managementAuthorization` hook alone
 * when set → otherwise a valid JWT (401) carrying the operate role (403). With authentication
 * off and no hook nobody can prove the operate role: 403.
 */
export function managementAuthorizationGate(ctx: MonitoringContext): RequestHandler {
  const o = ctx.options;
  return async (req, res, next) => {
    if (!provenanceAllows(req)) {
      return sendProblem(res, 403, 'Cross-site management requests are refused (browser provenance check).');
    }
    if (o.managementAuthorization !== null) {
      let allowed = false;
      try {
        allowed = (await o.managementAuthorization(req)) === true;
      } catch {
        allowed = false;
      }
      if (!allowed) return sendProblem(res, 403, 'The management authorization hook refused the request.');
      return next();
    }
    if (!o.enableAuthentication) {
      return sendProblem(res, 403, 'Authentication is disabled: no caller can hold the operate role.');
    }
    const token = bearerToken(req);
    if (token === undefined) return sendUnauthorized(res, 'missing', 'A bearer token with the operate role is required.');
    const r = ctx.tokens.verify(token);
    if (!r.ok) return sendUnauthorized(res, r.expired ? 'expired' : 'invalid', r.reason);
    // The refused session is named too: the operator audit records who was refused.
    res.locals.principal = r.principal;
    if (r.principal.role !== 'operate') return sendProblem(res, 403, 'The operate role is required.');
    next();
  };
}
