import type { BrowserContext } from 'playwright-core';

/** Puts a session (as the web platform stores it) into every page of the context before any script runs. */
export async function injectSession(context: BrowserContext, session: { username: string; token: string; expiresAt?: string; canManage?: boolean }): Promise<void> {
  await context.addInitScript((s) => {
    if (!window.sessionStorage.getItem('svc-monitoring.session')) window.sessionStorage.setItem('svc-monitoring.session', JSON.stringify(s));
  }, { canManage: false, ...session });
}
