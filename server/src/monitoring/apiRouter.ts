import express, { Router, type RequestHandler } from 'express';
import { API_ROUTES, type ApiOperation, type ApiRouteSpec } from '../contracts/index.js';
import { API_HANDLERS } from './apiHandlers.js';
import { auditManagement, auditSignIn } from './audit/recordAnswers.js';
import { requireBearer } from './auth/bearer.js';
import { createLoginRateLimiter } from './auth/loginRateLimiter.js';
import { problemErrorHandler } from './http/errorHandler.js';
import { sendProblem } from './http/problem.js';
import { MAGIC_LINK_USER } from './handlers/magicLink.js';
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

  // Sign-ins are recorded in the operator audit, refusals by the login limit included.
  const attemptedUser = (req: express.Request) => {
    const name = (req.body as { username?: unknown } | undefined)?.username;
    return typeof name === 'string' && name !== '' ? name : undefined;
  };
  const signInAudits: Partial<Record<ApiOperation, RequestHandler>> = {
    'auth.login': auditSignIn(ctx, 'password', attemptedUser),
    'auth.magic': auditSignIn(ctx, 'magic', () => MAGIC_LINK_USER),
    'auth.magicQuery': auditSignIn(ctx, 'magic', () => MAGIC_LINK_USER),
  };

  const management = Router();
  // Before the gate: its refusals are recorded too.
  management.use(auditManagement(ctx));
  management.use(managementAuthorizationGate(ctx));
  for (const [operation, route] of Object.entries(API_ROUTES) as Array<[ApiOperation, ApiRouteSpec]>) {
    const handler = API_HANDLERS[operation](ctx);
    const method = route.method === 'GET' ? 'get' : 'post';
    if (route.management) {
      if (!route.path.startsWith(`${MANAGEMENT_PREFIX}/`)) throw new Error(`${operation}: a management route must lie under ${MANAGEMENT_PREFIX}/`);
      // The management gate authenticates (with the operate role) for every path under the prefix.
      management[method](expressPath(route.path.slice(MANAGEMENT_PREFIX.length)), counted(route.operationId), handler);
    } else {
      const audited = signInAudits[operation];
      router[method](expressPath(route.path), counted(route.operationId), ...(audited ? [audited] : []), ...guards[route.auth], handler);
    }
  }
  router.use(MANAGEMENT_PREFIX, management);

  router.use((req, res) => sendProblem(res, 404, `No API endpoint ${req.method} ${req.originalUrl.split('?')[0]}.`));
  router.use(problemErrorHandler((m) => ctx.options.logger.warn(m)));
  return { router, close: () => limiter.close() };
}
