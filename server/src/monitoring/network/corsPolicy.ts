import cors from 'cors';
import type { RequestHandler } from 'express';

/**
 * Policy "SvcMonitoringApi", applied by the router only under /svc-monitoring. With no listed
 * origin (or `*`), any origin may call: `Access-Control-Allow-Origin: *` without credentials
 * (tokens travel in the Authorization header, never in cookies). With a list, only listed
 * origins are echoed (with credentials, for browser SignalR clients that send them); the
 * `null` origin (sandboxed frames, file: pages) is never echoed.
 */
export function corsPolicy(allowedOrigins: readonly string[]): RequestHandler {
  const anyOrigin = allowedOrigins.length === 0 || allowedOrigins.includes('*');
  const allowed = new Set(allowedOrigins.map((o) => o.toLowerCase().replace(/\/$/, '')));
  return cors({
    origin: anyOrigin ? '*' : (origin, cb) => cb(null, origin !== undefined && origin !== 'null' && allowed.has(origin.toLowerCase())),
    methods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
    allowedHeaders: ['Authorization', 'Content-Type', 'X-Requested-With', 'X-SignalR-User-Agent'],
    exposedHeaders: ['WWW-Authenticate', 'Retry-After', 'Deprecation', 'RateLimit', 'RateLimit-Policy'],
    credentials: !anyOrigin,
    maxAge: 600,
  }) as RequestHandler;
}
