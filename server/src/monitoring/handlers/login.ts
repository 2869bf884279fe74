import type { RequestHandler } from 'express';
import type { LoginResponse } from '../../contracts/index.js';
import { toIso } from '../../storage/time.js';
import { constantTimeEquals } from '../auth/constantTimeEquals.js';
import { BadRequestError, sendProblem } from '../http/problem.js';
import { sendJson } from '../http/sendJson.js';
import type { MonitoringContext } from '../MonitoringContext.js';

export function readCredentials(body: unknown): { username: string; password: string } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw BadRequestError.of('body', 'A JSON object {username, password} is required.');
  }
  const { username, password } = body as Record<string, unknown>;
  const errors: Record<string, string[]> = {};
  if (typeof username !== 'string' || username === '') errors.username = ['The username is required.'];
  if (typeof password !== 'string') errors.password = ['The password is required.'];
  if (Object.keys(errors).length > 0) throw new BadRequestError(errors);
  return { username: username as string, password: password as string };
}

/** POST /auth/login: the read credentials, or the second credential, the only one granting the operate role. */
export function loginHandler(ctx: MonitoringContext): RequestHandler {
  const o = ctx.options;
  return (req, res) => {
    const { username, password } = readCredentials(req.body);
    // Both comparisons always run: the time taken does not reveal which one matched.
    const operate =
      o.managementUsername !== null && o.managementPassword !== null
        ? Number(constantTimeEquals(username, o.managementUsername)) & Number(constantTimeEquals(password, o.managementPassword))
        : 0;
    const read = Number(constantTimeEquals(username, o.username)) & Number(constantTimeEquals(password, o.password));
    if (!operate && !read) return sendProblem(res, 401, 'Invalid username or password.');
    const role = operate ? 'operate' : 'read';
    const { token, expiresAtMs } = ctx.tokens.issue(username, role);
    const body: LoginResponse = { token, expiresAt: toIso(expiresAtMs), username, canManage: role === 'operate' };
    res.setHeader('Cache-Control', 'no-store');
    sendJson(res, 200, body);
  };
}
