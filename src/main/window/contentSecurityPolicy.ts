/**
 * The renderer's Content-Security-Policy. The renderer makes no network request of its own
 * (API and hub go through main), so `connect-src` allows nothing in production; the dev
 * server adds its origin (and its HMR WebSocket) and inline styles injected by Vite.
 * Style *attributes* are allowed (`style-src-attr`): chart tooltips are HTML with inline
 * `style=""`; style elements and sheets stay same-origin, and scripts never run inline.
 */
export function buildContentSecurityPolicy(options: { devServerUrl?: string } = {}): string {
  const dev = options.devServerUrl ? new URL(options.devServerUrl) : undefined;
  const devOrigin = dev ? dev.origin : '';
  const devWs = dev ? `${dev.protocol === 'https:' ? 'wss' : 'ws'}://${dev.host}` : '';
  const directives: Record<string, string[]> = {
    'default-src': ["'none'"],
    'script-src': ["'self'", ...(dev ? [devOrigin] : [])],
    'style-src': ["'self'", ...(dev ? [devOrigin, "'unsafe-inline'"] : [])],
    'style-src-attr': ["'unsafe-inline'"],
    'img-src': ["'self'", 'data:'],
    'font-src': ["'self'", 'data:'],
    'connect-src': dev ? ["'self'", devOrigin, devWs] : ["'self'"],
    'worker-src': ["'self'"],
    'manifest-src': ["'self'"],
    'object-src': ["'none'"],
    'frame-src': ["'none'"],
    'frame-ancestors': ["'none'"],
    'base-uri': ["'none'"],
    'form-action': ["'none'"],
  };
  return Object.entries(directives)
    .map(([k, v]) => `${k} ${v.join(' ')}`)
    .join('; ');
}
