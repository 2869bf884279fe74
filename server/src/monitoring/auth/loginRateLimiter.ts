import type { RequestHandler } from 'express';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';
import { sendProblem } from '../http/problem.js';
import type { ClientAddressResolver } from '../network/clientAddress.js';
import { BoundedMemoryStore } from './BoundedMemoryStore.js';

export interface LoginBudget {
  limit: number;
  windowMs: number;
  /** Clients tracked at once; the least recently seen is forgotten beyond it. */
  maxClients: number;
}

/**
 * Policy "svc-monitoring-login": one budget per client address (as the allow-list sees it)
 * shared by POST /auth/login, POST /auth/magic and GET /auth/magic; over it → 429 problem
 * with Retry-After.
 */
export function createLoginRateLimiter(
  budget: LoginBudget | null,
  clients: ClientAddressResolver,
  logger: { warn(message: string): void },
): { middleware: RequestHandler; store: BoundedMemoryStore | null; close(): void } {
  if (budget === null) return { middleware: (_req, _res, next) => next(), store: null, close: () => {} };
  const store = new BoundedMemoryStore(budget.maxClients);
  const middleware = rateLimit({
    windowMs: budget.windowMs,
    limit: budget.limit,
    store,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    validate: false,
    // IPv6 clients are keyed by their /56, as one host usually owns the whole range.
    keyGenerator: (req) => ipKeyGenerator(clients.addressOf(req) ?? 'unknown'),
    handler: (req, res) => {
      const info = (req as unknown as { rateLimit?: { resetTime?: Date; used?: number } }).rateLimit;
      const reset = info?.resetTime;
      // Once per client and window: the first refused attempt.
      if (info?.used === budget.limit + 1) {
        logger.warn(`svc-monitoring: login rate limit reached for client ${clients.addressOf(req) ?? 'unknown'} (${budget.limit} attempts).`);
      }
      const seconds = reset ? Math.max(1, Math.ceil((reset.getTime() - Date.now()) / 1000)) : Math.ceil(budget.windowMs / 1000);
      res.setHeader('Retry-After', String(seconds));
      sendProblem(res, 429, `Too many login attempts. Try again in ${seconds} seconds.`);
    },
  }) as RequestHandler;
  return { middleware, store, close: () => store.shutdown() };
}
