import { APP_ORIGIN } from './appProtocol.js';

export type NavigationDecision = { action: 'allow' } | { action: 'deny' } | { action: 'open-external'; url: string };

/** Origins the window may show: the app itself (or the dev server in development). */
export function appOrigins(devServerUrl?: string): string[] {
  return devServerUrl ? [APP_ORIGIN, originOf(devServerUrl)!] : [APP_ORIGIN];
}

/**
 * `scheme://host[:port]` of a URL. (Node's URL reports origin "null" for schemes it does not
 * know as special, such as `app:`, which Electron registers as standard.)
 */
export function originOf(url: string): string | undefined {
  const u = parse(url);
  return u && u.host !== '' ? `${u.protocol}//${u.host}` : undefined;
}

function parse(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

/** `will-navigate` / `will-redirect`: in-app URLs only; nothing else, not even externally. */
export function decideNavigation(url: string, allowedOrigins: readonly string[]): NavigationDecision {
  const origin = originOf(url);
  if (origin !== undefined && allowedOrigins.includes(origin)) return { action: 'allow' };
  return { action: 'deny' };
}

/**
 * `setWindowOpenHandler`: never a new Electron window. An http(s) link (documentation, the
 * environment's own web dashboard) opens in the system browser; any other scheme
 * (file:, javascript:, custom protocols) is refused.
 */
export function decideWindowOpen(url: string): NavigationDecision {
  const u = parse(url);
  if (u && (u.protocol === 'http:' || u.protocol === 'https:') && u.username === '' && u.password === '') {
    return { action: 'open-external', url: u.toString() };
  }
  return { action: 'deny' };
}
