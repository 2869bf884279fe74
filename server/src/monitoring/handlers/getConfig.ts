import type { RequestHandler } from 'express';
import type { MonitoringConfig } from '../../contracts/index.js';
import { OIDC_PATH } from '../auth/oidc/oidcRouter.js';
import { sendJson } from '../http/sendJson.js';
import { API_PATH, BASE_PATH, HUB_PATH, type MonitoringContext } from '../MonitoringContext.js';

/** GET /config: the runtime configuration, without authentication. */
export function getConfigHandler(ctx: MonitoringContext): RequestHandler {
  const config: MonitoringConfig = {
    apiBasePath: API_PATH,
    uiBasePath: BASE_PATH,
    signalRHubPath: HUB_PATH,
    requireAuthentication: ctx.options.enableAuthentication,
    uiEnabled: ctx.options.enableUI,
    managementEnabled: ctx.options.enableManagementEndpoints,
    eventDebounceMs: ctx.options.eventDebounceMs,
    passwordLoginEnabled: ctx.options.enablePasswordLogin,
    ...(ctx.options.oidc ? { singleSignOn: { displayName: ctx.options.oidc.displayName, loginPath: `${OIDC_PATH}/login` } } : {}),
  };
  return (_req, res) => sendJson(res, 200, config);
}
