import type { RequestHandler } from 'express';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';

/** Query parameters whose values are never logged. */
const SECRET_PARAM = /token|secret|password|key|code|signature/i;

/** The request's path and query with the values of secret-named parameters replaced. */
function loggedUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  for (const name of [...params.keys()]) if (SECRET_PARAM.test(name)) params.set(name, '[redacted]');
  return `${url.slice(0, q)}?${params.toString()}`;
}

/**
 * One line per answered request: method, URL (secret parameters redacted), status and latency
 * (ms), at info (warn for 5xx). No header is logged, so no credential can be.
 */
export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const t0 = performance.now();
    res.on('finish', () => {
      const line = {
        req: { method: req.method, url: loggedUrl(req.originalUrl), remoteAddress: req.socket.remoteAddress },
        res: { statusCode: res.statusCode },
        responseTimeMs: Math.round((performance.now() - t0) * 100) / 100,
      };
      if (res.statusCode >= 500) logger.warn(line, 'request failed');
      else logger.info(line, 'request completed');
    });
    next();
  };
}
