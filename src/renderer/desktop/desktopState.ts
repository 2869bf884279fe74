import { reactive } from 'vue';
import type { EnvironmentStatusView } from '../../shared/environmentStatus.js';
import { applyInboxChanges, type InboxItem } from '../../shared/inbox.js';
import type { DesktopBridge } from '../../shared/ipcContract.js';
import type { NotificationSettings, NotificationTarget } from '../../shared/notifications.js';
import type { ProxyLoginAnswer, ProxyLoginRequest } from '../../shared/proxyLogin.js';
import type { VaultStatus } from '../../shared/vault.js';
import { invoke } from '../platform/desktop/bridgeClient.js';
import type { ManagementConfirmation } from '../platform/desktop/createDesktopPlatform.js';
import { createCrossSearch } from './search/crossSearch.js';

/** The desktop shell's state: environments with live status, the active one, the inbox. */
export interface DesktopState {
  environments: EnvironmentStatusView[];
  activeId: string | null;
  inbox: InboxItem[];
  unread: number;
  vault: VaultStatus | null;
  settings: NotificationSettings | null;
  switcherOpen: boolean;
  inboxOpen: boolean;
  /** The all-environments page is shown instead of the active environment's dashboard. */
  allOpen: boolean;
  /** The search across environments is shown instead of the active environment's dashboard. */
  searchOpen: boolean;
  /** What the last palette action answered (shown as a status line until the next). */
  notice: string | null;
  inboxFilter: { environmentId?: string; burstId?: string };
  editor: { mode: 'add' } | { mode: 'edit'; id: string } | { mode: 'import-export' } | null;
  /** The management action waiting for the user: resolves with what they typed to confirm, or null (cancelled). */
  confirmation: (ManagementConfirmation & { resolve: (confirmation: string | null) => void }) | null;
  /** A route the dashboard should show once mounted (deep link, inbox jump). */
  pendingRoute: string | null;
  /** The dashboard's current route with its query (what "Copy link" links to). */
  currentRoute: string;
  /** Bumped to remount the dashboard (environment switch, new session). */
  mountKey: number;
  /** Proxies waiting for credentials, oldest first (the prompt shows the first). */
  proxyLogins: ProxyLoginRequest[];
}

export function createDesktopState(bridge: DesktopBridge) {
  const state = reactive<DesktopState>({
    environments: [],
    activeId: null,
    inbox: [],
    unread: 0,
    vault: null,
    settings: null,
    switcherOpen: false,
    inboxOpen: false,
    allOpen: false,
    searchOpen: false,
    notice: null,
    inboxFilter: {},
    editor: null,
    confirmation: null,
    pendingRoute: null,
    currentRoute: '/',
    mountKey: 0,
    proxyLogins: [],
  });

  const active = (): EnvironmentStatusView | undefined => state.environments.find((e) => e.id === state.activeId);

  async function refreshInbox(): Promise<void> {
    state.inbox = await invoke(bridge, 'inbox.list', {});
    state.unread = state.inbox.filter((i) => !i.read).length;
  }

  function upsert(env: EnvironmentStatusView): void {
    const i = state.environments.findIndex((e) => e.id === env.id);
    const before = i >= 0 ? state.environments[i] : undefined;
    if (i >= 0) state.environments[i] = env;
    else state.environments.push(env);
    // The dashboard follows the session: remount when the active environment logs in or out.
    if (env.id === state.activeId && before && dashboardVisible(before) !== dashboardVisible(env)) state.mountKey++;
  }

  function select(id: string, route: string | null = null): void {
    state.allOpen = false;
    state.searchOpen = false;
    if (state.activeId !== id) {
      state.activeId = id;
      state.mountKey++;
    }
    if (route) {
      state.pendingRoute = route;
      state.mountKey++;
    }
    try {
      localStorage.setItem('svc-monitor.desktop.active', id);
    } catch {
      /* storage may be unavailable */
    }
  }

  function open(target: NotificationTarget): void {
    if (target.kind === 'task') select(target.environmentId, `/tasks/${target.taskId}`);
    else if (target.kind === 'environment') select(target.environmentId);
    else if (target.kind === 'route') select(target.environmentId, target.path);
    else {
      state.inboxFilter = { ...(target.environmentId ? { environmentId: target.environmentId } : {}), ...(target.burstId ? { burstId: target.burstId } : {}) };
      state.inboxOpen = true;
    }
  }

  async function start(): Promise<void> {
    /** A link or notification click that came while starting wins over the remembered environment. */
    let opened = false;
    bridge.onEvent((e) => {
      switch (e.type) {
        case 'environments':
          state.environments = e.environments;
          if (!state.environments.some((x) => x.id === state.activeId)) {
            state.activeId = state.environments[0]?.id ?? null;
            state.mountKey++;
          }
          break;
        case 'status':
          upsert(e.environment);
          break;
        case 'inbox': {
          const next = applyInboxChanges(state.inbox, e.changes);
          if (next) {
            state.inbox = next;
            state.unread = next.filter((i) => !i.read).length;
          } else void refreshInbox();
          break;
        }
        case 'open':
          opened = true;
          open(e.target);
          break;
        case 'vault':
          state.vault = e.status;
          break;
        case 'proxyLogin':
          state.proxyLogins.push(e.request);
          break;
        case 'svcEvent':
        case 'bulkProgress':
          // The dashboard of the environment follows these through its platform.
          break;
      }
    });
    state.environments = await invoke(bridge, 'environments.list');
    state.vault = await invoke(bridge, 'vault.status');
    state.settings = await invoke(bridge, 'notifications.getSettings');
    await refreshInbox();
    // What main was asked to open before this page listened (a link that started the app).
    const pending = await invoke(bridge, 'window.ready');
    if (opened) return;
    if (pending) {
      open(pending);
      return;
    }
    let remembered: string | null = null;
    try {
      remembered = localStorage.getItem('svc-monitor.desktop.active');
    } catch {
      remembered = null;
    }
    const first = state.environments.find((e) => e.id === remembered) ?? state.environments[0];
    if (first) select(first.id);
  }

  function confirm(request: ManagementConfirmation): Promise<string | null> {
    return new Promise((resolve) => {
      state.confirmation?.resolve(null);
      state.confirmation = { ...request, resolve };
    });
  }

  async function reloadEnvironments(): Promise<void> {
    state.environments = await invoke(bridge, 'environments.list');
  }

  /** Answers the first proxy prompt (null: cancel). */
  async function answerProxyLogin(answer: ProxyLoginAnswer | null): Promise<void> {
    const request = state.proxyLogins.shift();
    if (request) await invoke(bridge, 'proxy.answer', request.id, answer);
  }

  async function saveSettings(settings: NotificationSettings): Promise<void> {
    await invoke(bridge, 'notifications.setSettings', settings);
    state.settings = settings;
  }

  const crossSearch = createCrossSearch(bridge);
  /** Opens the search across environments (with `text`: searches every environment for it at once). */
  function openSearch(text = ''): void {
    state.allOpen = false;
    state.searchOpen = true;
    if (text.trim()) void crossSearch.start(text.trim(), state.environments);
  }

  return { state, active, select, open, start, confirm, refreshInbox, reloadEnvironments, saveSettings, answerProxyLogin, openSearch, crossSearch, bridge };
}

/** The dashboard is shown when the session is usable; otherwise the shell's login or error panel. */
export function dashboardVisible(env: EnvironmentStatusView): boolean {
  return env.session.auth === 'authenticated';
}

export type DesktopController = ReturnType<typeof createDesktopState>;
