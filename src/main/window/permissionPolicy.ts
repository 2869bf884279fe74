import { originOf } from './navigationPolicy.js';

/**
 * What the app's own window may use: writing to the clipboard (every Copy button: task ids,
 * deep links, exported environments). Everything else (camera, notifications from the page,
 * geolocation, clipboard reads, …) is refused, and so is any request from another origin.
 */
export const ALLOWED_PERMISSIONS: readonly string[] = ['clipboard-sanitized-write'];

export function decidePermission(permission: string, requestingUrl: string | undefined, allowedOrigins: readonly string[]): boolean {
  if (!ALLOWED_PERMISSIONS.includes(permission)) return false;
  const origin = requestingUrl ? originOf(requestingUrl) : undefined;
  return origin !== undefined && allowedOrigins.includes(origin);
}
