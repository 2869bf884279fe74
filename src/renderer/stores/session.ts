import { defineStore } from 'pinia';
import { computed, inject, ref, shallowRef } from 'vue';
import type { ApiOperation, ApiParams, ApiResult } from '../../../server/src/contracts/api.js';
import type { MonitoringConfig } from '../../../server/src/contracts/task.js';
import { describeError, isApiError } from '../platform/ApiError.js';
import { PLATFORM_KEY } from '../platform/inject.js';
import type { Platform, SessionInfo } from '../platform/Platform.js';

export const SESSION_EXPIRED_MESSAGE = 'Your session has expired or is no longer valid. Please sign in again.';

export function requirePlatform(): Platform {
  const platform = inject(PLATFORM_KEY, null);
  if (!platform) throw new Error('No Platform provided to the app (app.provide(PLATFORM_KEY, platform)).');
  return platform;
}

/**
 * Who is signed in, the server's runtime configuration, and the one gateway every page uses
 * to call the API (`call`), which turns any 401 into "back to login with a message".
 */
export const useSessionStore = defineStore('session', () => {
  const platform = requirePlatform();
  const config = shallowRef<MonitoringConfig | null>(null);
  const user = shallowRef<SessionInfo | null>(null);
  const initialized = ref(false);
  const initError = ref<string | null>(null);
  /** A message for the login page (why the user is there). */
  const notice = ref<string | null>(null);
  /** Bumped on every sign-in / sign-out so the live connection restarts with the new identity. */
  const generation = ref(0);
  let initPromise: Promise<void> | null = null;

  const requiresAuth = computed(() => config.value?.requireAuthentication !== false);
  const isAuthenticated = computed(() => config.value !== null && (!requiresAuth.value || user.value !== null));
  /** Management UI may exist only where the platform supports it, the host enabled it and the session holds the operate role. */
  const canManageHere = computed(
    () => platform.capabilities.manage && config.value?.managementEnabled === true && user.value?.canManage === true,
  );

  function init(): Promise<void> {
    if (!initPromise) {
      initPromise = (async () => {
        try {
          config.value = await platform.call('config.get', {});
          initError.value = null;
        } catch (error) {
          initError.value = `The monitoring service did not answer: ${describeError(error)}`;
          initPromise = null;
          return;
        }
        const stored = platform.session.load();
        if (stored && stored.expiresAt && Date.parse(stored.expiresAt) <= Date.now()) {
          platform.session.clear();
          notice.value = SESSION_EXPIRED_MESSAGE;
          user.value = null;
        } else {
          user.value = stored;
        }
        initialized.value = true;
      })();
    }
    return initPromise;
  }

  /**
   * Forget everything loaded from the current server and start again (the desktop console
   * calls this after switching environment: another config, another session).
   */
  async function reload(): Promise<void> {
    initPromise = null;
    initialized.value = false;
    config.value = null;
    user.value = null;
    notice.value = null;
    generation.value += 1;
    await init();
  }

  function remember(session: SessionInfo): void {
    platform.session.save(session);
    user.value = session;
    notice.value = null;
    generation.value += 1;
  }

  async function login(username: string, password: string): Promise<void> {
    const response = await platform.call('auth.login', { username, password });
    remember({ username: response.username, expiresAt: response.expiresAt, canManage: response.canManage === true, token: response.token });
  }

  async function loginWithMagic(token: string): Promise<void> {
    const response = await platform.call('auth.magic', { token });
    remember({ username: response.username, expiresAt: response.expiresAt, canManage: false, token: response.token });
  }

  /** A session the server issued elsewhere (single sign-on): checked, then kept like any other. */
  async function adoptSession(token: string): Promise<void> {
    const response = await platform.call('auth.validate', { token });
    remember({ username: response.username, expiresAt: response.expiresAt, canManage: response.canManage, token });
  }

  function logout(message: string | null = null): void {
    platform.session.clear();
    user.value = null;
    notice.value = message;
    generation.value += 1;
  }

  /** A 401 anywhere: the session is gone. Ignored when the host runs without authentication. */
  function handleUnauthorized(): void {
    if (!requiresAuth.value) return;
    if (user.value === null && notice.value) return;
    logout(SESSION_EXPIRED_MESSAGE);
  }

  async function call<Op extends ApiOperation>(op: Op, params: ApiParams<Op>): Promise<ApiResult<Op>> {
    try {
      return await platform.call(op, params);
    } catch (error) {
      if (isApiError(error) && error.status === 401 && !op.startsWith('auth.')) handleUnauthorized();
      throw error;
    }
  }

  return {
    config,
    user,
    initialized,
    initError,
    notice,
    generation,
    requiresAuth,
    isAuthenticated,
    canManageHere,
    capabilities: platform.capabilities,
    init,
    reload,
    login,
    loginWithMagic,
    adoptSession,
    logout,
    handleUnauthorized,
    call,
  };
});
