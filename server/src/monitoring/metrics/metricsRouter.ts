import { Router, type Request } from 'express';
import { BASE_ROUTES } from '../../contracts/index.js';
import { bearerToken, sendUnauthorized } from '../auth/bearer.js';
import { constantTimeEquals } from '../auth/constantTimeEquals.js';
import type { TokenService } from '../auth/TokenService.js';
import type { ResolvedOptions } from '../options.js';
import type { MonitoringMetrics } from './createMetrics.js';

const ROUTE = BASE_ROUTES['metrics.scrape'];

/**
 * GET /svc-monitoring/metrics (after the allow-list): the read role's bearer, the `metricsToken`
 * secret as the bearer, or nothing at all when the host turns authentication off.
 */
export function metricsRouter(metrics: MonitoringMetrics, tokens: TokenService, options: ResolvedOptions): Router {
  const router = Router();
  const allowed = (req: Request): 'ok' | 'missing' | 'invalid' | 'expired' => {
    if (!options.enableAuthentication) return 'ok';
    const token = bearerToken(req);
    if (token === undefined) return 'missing';
    if (options.metricsToken !== null && constantTimeEquals(token, options.metricsToken)) return 'ok';
    const verified = tokens.verify(token);
    return verified.ok ? 'ok' : verified.expired ? 'expired' : 'invalid';
  };
  router.get(ROUTE.path, async (req, res, next) => {
    res.on('finish', () => metrics.countRequest(ROUTE.operationId, res.statusCode));
    const access = allowed(req);
    if (access !== 'ok') {
      return sendUnauthorized(res, access, access === 'missing' ? 'A bearer token (a login token or the metrics token) is required.' : 'The bearer token is not valid here.');
    }
    try {
      const { contentType, body } = await metrics.scrape(req.headers.accept);
      res.setHeader('Cache-Control', 'no-store');
      res.type(contentType).send(body);
    } catch (err) {
      next(err);
    }
  });
  return router;
}
