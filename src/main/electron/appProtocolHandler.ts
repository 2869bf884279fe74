import { net, protocol } from 'electron';
import { pathToFileURL } from 'node:url';
import { APP_SCHEME, resolveAppAsset } from '../window/appProtocol.js';
import { buildContentSecurityPolicy } from '../window/contentSecurityPolicy.js';

/** Must run before `app` is ready. */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true } },
  ]);
}

/** Serves the renderer build at app://console/ with the CSP header on every answer. */
export function serveRenderer(rendererDir: string): void {
  const csp = buildContentSecurityPolicy();
  protocol.handle(APP_SCHEME, async (request) => {
    const resolved = resolveAppAsset(rendererDir, request.url);
    if (resolved.kind === 'refused') return new Response(null, { status: resolved.status });
    const file = await net.fetch(pathToFileURL(resolved.path).toString()).catch(() => undefined);
    if (!file || !file.ok) return new Response(null, { status: 404 });
    return new Response(file.body, {
      status: 200,
      headers: { 'Content-Type': resolved.mimeType, 'Content-Security-Policy': csp, 'X-Content-Type-Options': 'nosniff' },
    });
  });
}
