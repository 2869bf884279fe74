import { join } from 'node:path';

/**
 * Where the console looks for updates. An installed build carries its feed
 * (`resources/app-update.yml`, written by electron-builder from `publish`); a private mirror
 * replaces it with SVC_MONITOR_UPDATE_URL. A development run, or a build without a feed, does
 * not update and says why.
 */
export const UPDATE_URL_VARIABLE = 'SVC_MONITOR_UPDATE_URL';

export type UpdateFeed =
  | { kind: 'build'; configPath: string }
  | { kind: 'url'; url: string }
  | { kind: 'disabled'; reason: string };

export interface FeedInputs {
  packaged: boolean;
  env: Readonly<Record<string, string | undefined>>;
  /** Electron's process.resourcesPath (undefined outside a packaged app). */
  resourcesPath: string | undefined;
  exists: (path: string) => boolean;
}

export function resolveUpdateFeed({ packaged, env, resourcesPath, exists }: FeedInputs): UpdateFeed {
  if (!packaged) return { kind: 'disabled', reason: 'Updates apply to installed builds; this is a development run.' };
  const override = env[UPDATE_URL_VARIABLE]?.trim();
  if (override) {
    let url: URL;
    try {
      url = new URL(override);
    } catch {
      return { kind: 'disabled', reason: `${UPDATE_URL_VARIABLE} is not a URL: "${override}".` };
    }
    // Linux packages are not signed: an update is only as trustworthy as the channel it comes
    // over, so a mirror must be https (plain http only on this machine's loopback, for a mirror
    // the user runs locally).
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
      return { kind: 'disabled', reason: `${UPDATE_URL_VARIABLE} must be an https URL (plain http only for a mirror on this machine's loopback), not ${url.protocol}//${url.host}` };
    }
    if (url.username || url.password) return { kind: 'disabled', reason: `${UPDATE_URL_VARIABLE} must not carry credentials in the URL.` };
    return { kind: 'url', url: url.href };
  }
  const configPath = resourcesPath ? join(resourcesPath, 'app-update.yml') : undefined;
  if (configPath && exists(configPath)) return { kind: 'build', configPath };
  return { kind: 'disabled', reason: `This build has no update feed (no app-update.yml); set ${UPDATE_URL_VARIABLE} to use a mirror.` };
}

/** 127.0.0.0/8, ::1 and localhost: addresses that never leave this machine. */
function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}
