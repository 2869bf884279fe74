import type { Request, RequestHandler, Response } from 'express';
import { sendProblem } from '../http/problem.js';
import type { Principal, TokenService } from './TokenService.js';

export const ANONYMOUS: Principal = { username: 'anonymous', role: 'read' };

export function bearerToken(req: Request): string | undefined {
  const h = req.headers.authorization;
  if (typeof h !== 'string') return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1] : undefined;
}

/** A missing or invalid bearer token: 401 problem with WWW-Authenticate: Bearer (expired: error="invalid_token"). */
export function sendUnauthorized(res: Response, kind: 'missing' | 'invalid' | 'expired', detail: string): void {
  const header =
    kind === 'missing'
      ? 'Bearer'
      : kind === 'expired'
        ? 'Bearer error="invalid_token", error_description="The token expired"'
        : 'Bearer error="invalid_token", error_description="The token is invalid"';
  res.setHeader('WWW-Authenticate', header);
  sendProblem(res, 401, detail);
}

export function principalOf(res: Response): Principal {
  return (res.locals.principal as Principal | undefined) ?? ANONYMOUS;
}

/** Authenticates a protected endpoint; with authentication off everyone passes as anonymous reader. */
export function requireBearer(tokens: TokenService, enabled: boolean): RequestHandler {
  return (req, res, next) => {
    if (!enabled) {
      res.locals.principal = ANONYMOUS;
      return next();
    }
    const token = bearerToken(req);
    if (token === undefined) return sendUnauthorized(res, 'missing', 'A bearer token is required.');
    const r = tokens.verify(token);
    if (!r.ok) return sendUnauthorized(res, r.expired ? 'expired' : 'invalid', r.reason);
    res.locals.principal = r.principal;
    next();
  };
}
