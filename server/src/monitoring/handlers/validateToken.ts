import type { RequestHandler } from 'express';
import type { ValidateResponse } from '../../contracts/index.js';
import { toIso } from '../../storage/common/time.js';
import { ANONYMOUS, bearerToken, sendUnauthorized } from '../auth/bearer.js';
import { BadRequestError } from '../http/problem.js';
import { fieldErrors, validateRequestSchema } from '../openapi/answerSchemas.js';
import { sendJson } from '../http/sendJson.js';
import type { MonitoringContext } from '../MonitoringContext.js';

/** POST /auth/validate: body {token?}, defaulting to the bearer token; an invalid token → 401. */
export function validateTokenHandler(ctx: MonitoringContext): RequestHandler {
  return (req, res) => {
    const body = req.body as unknown;
    let token: string | undefined;
    if (body !== undefined && body !== null) {
      if (typeof body !== 'object' || Array.isArray(body)) throw BadRequestError.of('body', 'A JSON object {token?} is expected.');
      // A null token reads as none, like an empty one.
      const parsed = validateRequestSchema.safeParse({ token: (body as Record<string, unknown>).token ?? undefined });
      if (!parsed.success) throw new BadRequestError(fieldErrors(parsed.error));
      if (parsed.data.token !== '') token = parsed.data.token;
    }
    token ??= bearerToken(req);
    if (token === undefined) {
      if (!ctx.options.enableAuthentication) {
        const anonymous: ValidateResponse = { isValid: true, username: ANONYMOUS.username, canManage: false };
        return sendJson(res, 200, anonymous);
      }
      return sendUnauthorized(res, 'missing', 'A token is required (body or bearer).');
    }
    const r = ctx.tokens.verify(token);
    if (!r.ok) return sendUnauthorized(res, r.expired ? 'expired' : 'invalid', r.reason);
    const out: ValidateResponse = {
      isValid: true,
      username: r.principal.username,
      expiresAt: toIso(r.principal.expiresAtMs),
      canManage: r.principal.role === 'operate',
    };
    sendJson(res, 200, out);
  };
}
