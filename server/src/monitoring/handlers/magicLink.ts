import type { Request, RequestHandler, Response } from 'express';
import type { MagicResponse } from '../../contracts/index.js';
import { toIso } from '../../storage/common/time.js';
import { constantTimeEquals } from '../auth/constantTimeEquals.js';
import { magicRequestSchema } from '../openapi/answerSchemas.js';
import { sendProblem } from '../http/problem.js';
import { QueryParams } from '../http/queryParams.js';
import { sendJson } from '../http/sendJson.js';
import { noteAudit } from '../audit/recordAnswers.js';
import type { MonitoringContext } from '../MonitoringContext.js';

/** The user name of every magic-link session (a magic-link session has read-only rights). */
export const MAGIC_LINK_USER = 'magic-link';

function exchange(ctx: MonitoringContext, token: unknown, res: Response): void {
  res.setHeader('Cache-Control', 'no-store');
  const configured = ctx.options.magicLinkToken;
  if (configured === null) return sendProblem(res, 404, 'No magic link is configured on this host.');
  if (typeof token !== 'string' || token === '' || !constantTimeEquals(token, configured)) {
    return sendProblem(res, 401, 'The magic link token is invalid.');
  }
  const issued = ctx.tokens.issue(MAGIC_LINK_USER, 'read', 'magic');
  noteAudit(res, { role: 'read' });
  const body: MagicResponse = { token: issued.token, expiresAt: toIso(issued.expiresAtMs), username: MAGIC_LINK_USER };
  sendJson(res, 200, body);
}

/** POST /auth/magic {token}: exchanges the magic-link token for a read-only session token (no-store). */
export function magicPostHandler(ctx: MonitoringContext): RequestHandler {
  return (req: Request, res) => {
    // A body without a string token is no valid magic link (401), not a malformed request.
    const parsed = magicRequestSchema.safeParse(req.body);
    exchange(ctx, parsed.success ? parsed.data.token : undefined, res);
  };
}

/** Deprecated GET /auth/magic?token=: same answers as POST plus Deprecation: true. */
export function magicGetHandler(ctx: MonitoringContext): RequestHandler {
  return (req, res) => {
    res.setHeader('Deprecation', 'true');
    exchange(ctx, new QueryParams(req).string('token'), res);
  };
}
