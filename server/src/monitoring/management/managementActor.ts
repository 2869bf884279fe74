import type { Request, Response } from 'express';
import type { Principal } from '../auth/TokenService.js';

/**
 * Who is asking, for the status-audit entries of retry and bulk actions: the JWT's user; with
 * the `managementAuthorization` hook, the host's principal when it left one on the request
 * (`req.user` with a name, username or id), else "management hook".
 */
export const MANAGEMENT_HOOK_ACTOR = 'management hook';

export function managementActor(req: Request, res: Response): string {
  const principal = res.locals.principal as Principal | undefined;
  if (principal?.username) return principal.username;
  const user = (req as Request & { user?: unknown }).user;
  if (user && typeof user === 'object') {
    for (const key of ['name', 'username', 'id', 'sub']) {
      const v = (user as Record<string, unknown>)[key];
      if (typeof v === 'string' && v !== '') return v.slice(0, 200);
    }
  }
  return MANAGEMENT_HOOK_ACTOR;
}
