import type { Platform } from '../Platform.js';
import { createWebApiClient } from './webApiClient.js';
import { connectWebLive } from './webLive.js';
import { createWebSessionStorage } from './webSession.js';

export interface WebPlatformOptions {
  /** The monitoring base path, `/svc-monitoring`. */
  basePath?: string;
  storage?: Storage;
}

/** The browser implementation: axios to `{base}/api`, token in sessionStorage, SignalR to `{base}/hub`. */
export function createWebPlatform(options: WebPlatformOptions = {}): Platform {
  const base = (options.basePath ?? '/svc-monitoring').replace(/\/$/, '');
  const session = createWebSessionStorage(options.storage ?? window.sessionStorage);
  const getToken = (): string | undefined => session.load()?.token;
  const call = createWebApiClient(`${base}/api`, getToken);
  return {
    name: 'web',
    capabilities: { manage: false, notifications: false, hostChrome: false },
    call,
    session,
    connectLive: (onEvent, onState) => connectWebLive({ hubUrl: `${base}/hub`, getToken }, onEvent, onState),
    notify: () => undefined,
  };
}
