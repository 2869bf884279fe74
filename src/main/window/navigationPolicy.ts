import { APP_ORIGIN } from './appProtocol.js';

export type NavigationDecision = { action: 'allow' } | { action: 'deny' } | { action: 'open-external'; url: string };

/** Origins the window may show: the app itself (or the dev server in development). */
export function appOrigins(devServerUrl?: string): string[] {
  return devServerUrl ? [APP_ORIGIN, new URL(devServerUrl).origin] : [APP_ORIGIN];
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
  const u = parse(url);
  if (u && allowedOrigins.includes(u.origin)) return { action: 'allow' };
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
