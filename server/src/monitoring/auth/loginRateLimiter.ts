import type { RequestHandler } from 'express';
import { MemoryStore, ipKeyGenerator, rateLimit } from 'express-rate-limit';
import { sendProblem } from '../http/problem.js';
import { clientAddress } from '../network/clientAddress.js';

/**
 * §8 policy "svc-monitoring-login": one budget per client address shared by POST /auth/login,
 * POST /auth/magic and GET /auth/magic; over it → 429 problem with Retry-After.
 */
export function createLoginRateLimiter(
  budget: { limit: number; windowMs: number } | null,
  trustForwardedFor: boolean,
): { middleware: RequestHandler; close(): void } {
  if (budget === null) return { middleware: (_req, _res, next) => next(), close: () => {} };
  const store = new MemoryStore();
  const middleware = rateLimit({
    windowMs: budget.windowMs,
    limit: budget.limit,
    store,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    validate: false,
    keyGenerator: (req) => ipKeyGenerator(clientAddress(req, trustForwardedFor) ?? 'unknown'),
    handler: (req, res) => {
      const reset = (req as unknown as { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
      const seconds = reset ? Math.max(1, Math.ceil((reset.getTime() - Date.now()) / 1000)) : Math.ceil(budget.windowMs / 1000);
      res.setHeader('Retry-After', String(seconds));
      sendProblem(res, 429, `Too many login attempts. Try again in ${seconds} seconds.`);
    },
  }) as RequestHandler;
  return { middleware, close: () => store.shutdown() };
}
