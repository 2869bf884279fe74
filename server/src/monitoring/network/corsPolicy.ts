import cors from 'cors';
import type { RequestHandler } from 'express';

/**
 * Any origin is reflected (not `*`) so that browser clients sending credentials, like the
 * SignalR client's negotiate, are accepted too.
 * §5.12 policy "SvcMonitoringApi": applied by the router only under /svc-monitoring. */
export function corsPolicy(allowedOrigins: readonly string[]): RequestHandler {
  const anyOrigin = allowedOrigins.length === 0 || allowedOrigins.includes('*');
  const allowed = new Set(allowedOrigins.map((o) => o.toLowerCase().replace(/\/$/, '')));
  return cors({
    origin: anyOrigin ? true : (origin, cb) => cb(null, origin !== undefined && allowed.has(origin.toLowerCase())),
    methods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
    allowedHeaders: ['Authorization', 'Content-Type', 'X-Requested-With', 'X-SignalR-User-Agent'],
    exposedHeaders: ['WWW-Authenticate', 'Retry-After', 'Deprecation', 'RateLimit', 'RateLimit-Policy'],
    credentials: true,
    maxAge: 600,
  }) as RequestHandler;
}
