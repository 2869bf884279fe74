import type { ApiOperation, ApiParams, ApiResult } from '../../../../server/src/contracts/api.js';
import type { BulkOperation } from '../../../../server/src/contracts/operations.js';
import type { DesktopBridge } from '../../../shared/ipcContract.js';
import type { ManagementAction, ProxiedOperation } from '../../../shared/proxiedOperations.js';
import type { SessionView } from '../../../shared/session.js';
import type { LiveState } from '../../../../server/src/contracts/liveConnection.js';
import type { LiveConnection, Platform, SessionInfo } from '../Platform.js';
import { invoke } from './bridgeClient.js';

/** What a management action asks the user before it runs (the shell shows the dialog). */
export interface ManagementConfirmation {
  operation: ManagementAction;
  /** The task (single-row actions); empty for a bulk action. */
  taskId: string;
  /** A bulk action in words, e.g. "Requeue 1,234 failed occurrences". */
  summary?: string;
  environmentName: string;
  isProduction: boolean;
}

export interface DesktopPlatformOptions {
  bridge: DesktopBridge;
  environmentId: string;
  environmentName: string;
  isProduction: boolean;
  /** The session as main reported it when the dashboard was mounted. */
  session: SessionView;
  /**
   * Asks the user to confirm a management action: what they typed to confirm (the environment's
   * name for production, main checks it; empty otherwise), or null when they cancelled.
   */
  confirmManagement: (request: ManagementConfirmation) => Promise<string | null>;
  /** A session change the dashboard made (login, logout) that the shell must follow. */
  onSessionChanged?: (view: SessionView) => void;
}

/**
 * A management action the way every desktop view runs it: the user confirms first (typing the
 * environment's name for production; main checks it again), then main calls the environment.
 */
export async function confirmAndManage(
  options: Pick<DesktopPlatformOptions, 'bridge' | 'environmentId' | 'environmentName' | 'isProduction' | 'confirmManagement'>,
  action: ManagementAction,
  params: Record<string, unknown>,
): Promise<ApiResult<ProxiedOperation>> {
  const bulk = action === 'management.bulk';
  const confirmation = await options.confirmManagement({
    operation: action,
    taskId: bulk ? '' : (params as { id: string }).id,
    ...(bulk ? { summary: bulkSummary(params as ApiParams<'management.bulk'>) } : {}),
    environmentName: options.environmentName,
    isProduction: options.isProduction,
  });
  if (confirmation === null) throw new ManagementCancelledError();
  return invoke(options.bridge, 'api.manage', options.environmentId, action, params, confirmation);
}

export class ManagementCancelledError extends Error {
  override name = 'ManagementCancelledError';
  constructor() {
    super('Cancelled: nothing was changed.');
  }
}

/** "Requeue 1,234 failed occurrences": the action, the confirmed count and what the filter selects. */
export function bulkSummary(p: ApiParams<'management.bulk'>): string {
  const verb = p.action === 'requeue' ? 'Requeue' : p.action === 'retry' ? 'Retry' : 'Cancel';
  const statuses = (p.filter.statuses ?? []).map((s) => s.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase());
  const noun = p.filter.onlyOccurrences ? (p.expectedCount === 1 ? 'occurrence' : 'occurrences') : p.expectedCount === 1 ? 'task' : 'tasks';
  const what = statuses.length > 0 ? `${statuses.join(' or ')} ${noun}` : noun;
  return `${verb} ${p.expectedCount.toLocaleString('en-US')} ${what}`;
}

/**
 * The desktop Platform: every call goes over the preload bridge to main, which holds the
 * token, validates the parameters and makes the HTTP call. Login and logout go to the
 * environment's session in main; live events come from main's hub connection.
 */
export function createDesktopPlatform(options: DesktopPlatformOptions): Platform {
  const { bridge, environmentId } = options;
  let view = options.session;
  const changed = (next: SessionView) => {
    view = next;
    options.onSessionChanged?.(next);
  };

  async function call<Op extends ApiOperation>(op: Op, params: ApiParams<Op>): Promise<ApiResult<Op>> {
    switch (op) {
      case 'auth.login': {
        const p = params as ApiParams<'auth.login'>;
        const next = await invoke(bridge, 'session.loginPassword', environmentId, { username: p.username, password: p.password, remember: false });
        changed(next);
        return { token: '', username: next.username ?? p.username, expiresAt: next.expiresAt ?? '', canManage: next.canManage } as ApiResult<Op>;
      }
      case 'auth.magic': {
        const next = await invoke(bridge, 'session.loginMagic', environmentId, (params as ApiParams<'auth.magic'>).token);
        changed(next);
        return { token: '', username: next.username ?? '', expiresAt: next.expiresAt ?? '' } as ApiResult<Op>;
      }
      case 'auth.validate': {
        const next = await invoke(bridge, 'session.get', environmentId);
        return { isValid: next.auth === 'authenticated', username: next.username ?? '', canManage: next.canManage, ...(next.expiresAt ? { expiresAt: next.expiresAt } : {}) } as ApiResult<Op>;
      }
      case 'management.requeue':
      case 'management.resume':
      case 'management.retry':
      case 'management.cancel':
      case 'management.bulk': {
        return (await confirmAndManage(options, op as ManagementAction, params as Record<string, unknown>)) as ApiResult<Op>;
      }
    }
    return (await invoke(bridge, 'api.call', environmentId, op as never, params as Record<string, unknown>)) as ApiResult<Op>;
  }

  const session = {
    load(): SessionInfo | null {
      if (view.auth !== 'authenticated' || !view.requireAuthentication) return null;
      return { username: view.username ?? '', canManage: view.canManage, ...(view.expiresAt ? { expiresAt: view.expiresAt } : {}) };
    },
    save(): void {
      // main keeps the session; nothing to store in the renderer.
    },
    clear(): void {
      if (view.auth === 'authenticated') void invoke(bridge, 'session.logout', environmentId).then(changed, () => undefined);
    },
  };

  function connectLive(onEvent: Parameters<Platform['connectLive']>[0], onState: (state: LiveState, detail?: string) => void): LiveConnection {
    const off = bridge.onEvent((e) => {
      if (e.type === 'svcEvent' && e.environmentId === environmentId) onEvent(e.event);
      else if (e.type === 'status' && e.environment.id === environmentId) {
        const hub = e.environment.hub;
        onState(e.environment.live === 'relogin-required' ? 'unauthorized' : hub.state, hub.message);
      }
    });
    void invoke(bridge, 'environments.list').then((list) => {
      const env = list.find((x) => x.id === environmentId);
      if (env) onState(env.hub.state, env.hub.message);
    });
    return {
      async stop() {
        off();
        onState('idle');
      },
    };
  }

  function followBulkProgress(onProgress: (progress: BulkOperation) => void): () => void {
    return bridge.onEvent((e) => {
      if (e.type === 'bulkProgress' && e.environmentId === environmentId) onProgress(e.progress);
    });
  }

  return {
    name: 'desktop',
    capabilities: { manage: true, notifications: true, hostChrome: true },
    call,
    session,
    connectLive,
    followBulkProgress,
    // main raises native notifications for failures (coalesced); nothing to do per page.
    notify: () => undefined,
  };
}
