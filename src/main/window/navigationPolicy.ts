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

/** The product's own site (package.json `homepage`): help links may open it. */
export const PRODUCT_SITE_ORIGIN = 'https://svc-monitor.dev';

/**
 * `setWindowOpenHandler` and the bridge's `shell.openExternal`: never a new Electron window.
 * Only an http(s) address without credentials whose origin is one of `externalOrigins` (the
 * environments' hosts, whose web dashboards the console links to, and the product's site) opens
 * in the system browser. Anything else is refused: another host (a page could otherwise send the
 * user anywhere under the app's name), and every other scheme (file:, javascript:, smb:, custom
 * protocols, which hand the address to another program).
 */
export function decideWindowOpen(url: string, externalOrigins: readonly string[]): NavigationDecision {
  const u = parse(url);
  if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:') || u.username !== '' || u.password !== '') return { action: 'deny' };
  const origin = originOf(url);
  if (origin === undefined || !(origin === PRODUCT_SITE_ORIGIN || externalOrigins.includes(origin))) return { action: 'deny' };
  return { action: 'open-external', url: u.toString() };
}

/** The origins the console may open externally: each environment's host (deduplicated). */
export function environmentOrigins(environments: ReadonlyArray<{ baseUrl: string }>): string[] {
  return [...new Set(environments.map((e) => originOf(e.baseUrl)).filter((o): o is string => o !== undefined))];
}
