import { Router, type NextFunction, type Request, type Response } from 'express';
import { parseUrl, type HubContext } from './HubContext.js';
import { sendHubError } from './httpErrors.js';
import { handleDelete } from './requests/deleteRequest.js';
import { handleGet } from './requests/getRequest.js';
import { handleNegotiate } from './requests/negotiateRequest.js';
import { handlePost } from './requests/postRequest.js';

/**
 * The hub's HTTP endpoints on their full paths (`{path}/negotiate`, `{path}`). It matches on
 * `originalUrl`, so it works mounted at the app root and also when a host calls it from a
 * sub-router.
 */
export function createHubRouter(ctx: HubContext): Router {
  const router = Router();
  const negotiatePath = `${ctx.options.path}/negotiate`;
  router.use((req: Request, res: Response, next: NextFunction) => {
    const { pathname, query } = parseUrl(req.originalUrl ?? req.url);
    const fail = (err: unknown) => {
      if (!res.headersSent) sendHubError(res, 400, err instanceof Error ? err.message : 'Bad request.');
      else res.end();
    };
    if (pathname === negotiatePath) {
      if (req.method === 'POST') return handleNegotiate(ctx, req, res, query);
      if (req.method === 'OPTIONS') return next();
      res.setHeader('Allow', 'POST');
      return sendHubError(res, 405, 'Negotiate takes POST.');
    }
    if (pathname !== ctx.options.path) return next();
    switch (req.method) {
      case 'GET':
        return handleGet(ctx, req, res, query);
      case 'POST':
        return void handlePost(ctx, req, res, query).catch(fail);
      case 'DELETE':
        return handleDelete(ctx, req, res, query);
      case 'OPTIONS':
        return next();
      default:
        res.setHeader('Allow', 'GET, POST, DELETE');
        return sendHubError(res, 405, `${req.method} is not a hub method.`);
    }
  });
  return router;
}
