import type { Request, Response } from 'express';
import type { Principal } from '../auth/TokenService.js';
import type { MonitoringContext } from '../MonitoringContext.js';

/**
 * Whether the caller of an authenticated route holds the operate role: the
 * `managementAuthorization` hook decides when the host set one (as on the management routes),
 * otherwise the session's JWT role (with authentication off nobody holds it).
 */
export async function holdsOperateRole(ctx: MonitoringContext, req: Request, res: Response): Promise<boolean> {
  const hook = ctx.options.managementAuthorization;
  if (hook !== null) {
    try {
      return (await hook(req)) === true;
    } catch {
      return false;
    }
  }
  const principal = res.locals.principal as Principal | undefined;
  return ctx.options.enableAuthentication && principal?.role === 'operate';
}
