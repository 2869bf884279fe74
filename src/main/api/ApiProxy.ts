import type { ApiParams, ApiResult } from '../../../server/src/contracts/api.js';
import { buildApiRequest } from '../../../server/src/contracts/apiRequest.js';
import { ConsoleError } from '../ConsoleError.js';
import { describeZodError } from '../environments/environment.js';
import type { EnvironmentSession } from '../session/EnvironmentSession.js';
import { httpError, networkError } from '../session/httpClient.js';
import type { ProxiedOperation } from '../../shared/proxiedOperations.js';
import { isProxiedOperation, OPERATION_PARAMS } from './operationParams.js';

export interface SessionLookup {
  session(environmentId: string): EnvironmentSession | undefined;
}

/**
 * Every API call of the renderer: by operation name and parameters. Main validates the
 * parameters, builds the operation's request from the route catalogue, attaches the session's token and
 * answers the body. A 401 hands the session its rejection (renewal or re-login prompt) and
 * retries once when a new token is in place.
 */
export class ApiProxy {
  constructor(private readonly sessions: SessionLookup) {}

  async call<Op extends ProxiedOperation>(environmentId: string, operation: Op, params: unknown): Promise<ApiResult<Op>> {
    if (!isProxiedOperation(operation)) {
      throw new ConsoleError('not-found', `Unknown API operation "${String(operation)}"`);
    }
    const parsed = OPERATION_PARAMS[operation].safeParse(params ?? {});
    if (!parsed.success) {
      throw new ConsoleError('invalid-arguments', `${operation}: ${describeZodError(parsed.error)}`);
    }
    const session = this.sessions.session(environmentId);
    if (!session) throw new ConsoleError('not-found', `Unknown environment "${environmentId}"`);
    const route = buildApiRequest(operation, parsed.data as ApiParams<Op>);

    if (route.management) {
      const view = session.view();
      if (!view.managementEnabled) throw new ConsoleError('forbidden', 'Management endpoints are not enabled on this environment');
      if (!view.canManage) throw new ConsoleError('forbidden', 'This session does not carry the operate role (log in with the management credential)');
    }

    for (let attempt = 0; ; attempt++) {
      const token = route.authenticated ? await session.freshToken() : undefined;
      if (route.authenticated && token === undefined && session.view().requireAuthentication) {
        throw new ConsoleError('login-required', `Log in to this environment first (${session.view().message ?? 'no session'})`);
      }
      let response;
      try {
        response = await session.client.request({
          method: route.method,
          url: route.path,
          params: new URLSearchParams(route.query),
          headers: token ? { Authorization: `Bearer ${token}` } : {},
          ...(route.body ? { data: route.body } : {}),
        });
      } catch (err) {
        throw networkError(err, `${operation} on ${session.baseUrl}`);
      }
      if (response.status >= 200 && response.status < 300) return response.data as ApiResult<Op>;
      if (route.management && isManagementBody(response.data)) return response.data as ApiResult<Op>;
      if (response.status === 401 && route.authenticated) {
        const renewed = await session.handleRejected('The server rejected the session token');
        if (renewed && attempt === 0) continue;
        throw new ConsoleError('login-required', `${operation}: the session was rejected; log in again`, 401);
      }
      throw httpError(response, operation);
    }
  }
}

/** A management answer with a status body (409 and the like): a task action's, or a bulk action's count mismatch. */
function isManagementBody(data: unknown): boolean {
  if (typeof data !== 'object' || data === null || typeof (data as { status?: unknown }).status !== 'string') return false;
  return typeof (data as { taskId?: unknown }).taskId === 'string' || typeof (data as { count?: unknown }).count === 'number';
}
