import express, { Router, type RequestHandler } from 'express';
import { API_ROUTES, type ApiOperation, type ApiRouteSpec } from '../contracts/index.js';
import { API_HANDLERS } from './apiHandlers.js';
import { requireBearer } from './auth/bearer.js';
import { createLoginRateLimiter } from './auth/loginRateLimiter.js';
import { problemErrorHandler } from './http/errorHandler.js';
import { sendProblem } from './http/problem.js';
import { managementAuthorizationGate } from './management/managementGate.js';
import type { MonitoringContext } from './MonitoringContext.js';

const MANAGEMENT_PREFIX = '/management';

/** A catalogue path in Express form: `/tasks/{id}` → `/tasks/:id`. */
export function expressPath(path: string): string {
  return path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}

/** Everything under /svc-monitoring/api, mounted from the route catalogue. */
export function createApiRouter(
  ctx: MonitoringContext,
  countRequest: (route: string, status: number) => void = () => undefined,
): { router: Router; close(): void } {
  const router = Router();
  const limiter = createLoginRateLimiter(ctx.options.loginRateLimit, ctx.clients, ctx.options.logger);
  const auth = requireBearer(ctx.tokens, ctx.options.enableAuthentication);
  const guards: Record<ApiRouteSpec['auth'], RequestHandler[]> = {
    public: [],
    credentials: [limiter.middleware],
    bearer: [auth],
    // The handler reads the token from the body or the bearer itself.
    'optional-bearer': [],
  };

  // Every answer is counted under its catalogue name once it is sent (a refusal by a guard too).
  const counted = (route: string): RequestHandler => (_req, res, next) => {
    res.on('finish', () => countRequest(route, res.statusCode));
    next();
  };
  router.use(express.json({ limit: '64kb', strict: false }));

  const management = Router();
  management.use(managementAuthorizationGate(ctx));
  for (const [operation, route] of Object.entries(API_ROUTES) as Array<[ApiOperation, ApiRouteSpec]>) {
    const handler = API_HANDLERS[operation](ctx);
    const method = route.method === 'GET' ? 'get' : 'post';
    if (route.management) {
      if (!route.path.startsWith(`${MANAGEMENT_PREFIX}/`)) throw new Error(`${operation}: a management route must lie under ${MANAGEMENT_PREFIX}/`);
      // The management gate authenticates (with the operate role) for every path under the prefix.
      management[method](expressPath(route.path.slice(MANAGEMENT_PREFIX.length)), counted(route.operationId), handler);
    } else {
      router[method](expressPath(route.path), counted(route.operationId), ...guards[route.auth], handler);
    }
  }
  router.use(MANAGEMENT_PREFIX, management);

  router.use((req, res) => sendProblem(res, 404, `No API endpoint ${req.method} ${req.originalUrl.split('?')[0]}.`));
  router.use(problemErrorHandler((m) => ctx.options.logger.warn(m)));
  return { router, close: () => limiter.close() };
}
