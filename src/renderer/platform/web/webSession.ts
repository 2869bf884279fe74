import type { SessionInfo, SessionStorageLike } from '../Platform.js';

const KEY = 'svc-monitoring.session';

/** The web session lives in sessionStorage: one browser tab, gone when the tab closes. */
export function createWebSessionStorage(storage: Storage = window.sessionStorage): SessionStorageLike {
  return {
    load() {
      try {
        const raw = storage.getItem(KEY);
        if (!raw) return null;
        const parsed = JSON.parse(raw) as Partial<SessionInfo>;
        if (typeof parsed.username !== 'string') return null;
        return {
          username: parsed.username,
          canManage: parsed.canManage === true,
          expiresAt: typeof parsed.expiresAt === 'string' ? parsed.expiresAt : undefined,
          token: typeof parsed.token === 'string' ? parsed.token : undefined,
        };
      } catch {
        return null;
      }
    },
    save(session) {
      storage.setItem(KEY, JSON.stringify(session));
    },
    clear() {
      storage.removeItem(KEY);
    },
  };
}
