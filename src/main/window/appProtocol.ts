import { extname, resolve, sep } from 'node:path';

/** The privileged scheme the renderer is served from (`app://console/...`). */
export const APP_SCHEME = 'app';
export const APP_HOST = 'console';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.map': 'application/json',
};

export type AppAssetResolution = { kind: 'file'; path: string; mimeType: string } | { kind: 'refused'; status: 400 | 404 };

/**
 * Maps an `app://console/<path>` request to a file under the renderer build folder: a path
 * with an extension is that asset; an extension-less path is an SPA route (index.html).
 * Anything outside the folder, another host or another scheme is refused.
 */
export function resolveAppAsset(rendererDir: string, requestUrl: string): AppAssetResolution {
  let url: URL;
  try {
    url = new URL(requestUrl);
  } catch {
    return { kind: 'refused', status: 400 };
  }
  if (url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST) return { kind: 'refused', status: 404 };
  let pathname: string;
  try {
    pathname = decodeURIComponent(url.pathname);
  } catch {
    return { kind: 'refused', status: 400 };
  }
  if (pathname.includes('\0')) return { kind: 'refused', status: 400 };
  const root = resolve(rendererDir);
  const ext = extname(pathname);
  const target = ext === '' ? resolve(root, 'index.html') : resolve(root, '.' + pathname);
  if (target !== root && !target.startsWith(root + sep)) return { kind: 'refused', status: 404 };
  return { kind: 'file', path: target, mimeType: MIME[extname(target)] ?? 'application/octet-stream' };
}
