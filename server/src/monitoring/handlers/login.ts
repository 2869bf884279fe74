import type { RequestHandler } from 'express';
import type { LoginRequest, LoginResponse } from '../../contracts/index.js';
import { toIso } from '../../storage/common/time.js';
import { constantTimeEquals } from '../auth/constantTimeEquals.js';
import { BadRequestError, sendProblem } from '../http/problem.js';
import { sendJson } from '../http/sendJson.js';
import { noteAudit } from '../audit/recordAnswers.js';
import type { MonitoringContext } from '../MonitoringContext.js';
import { fieldErrors, loginRequestSchema } from '../openapi/answerSchemas.js';

export function readCredentials(body: unknown): LoginRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw BadRequestError.of('body', 'A JSON object {username, password} is required.');
  }
  const parsed = loginRequestSchema.safeParse(body);
  if (!parsed.success) throw new BadRequestError(fieldErrors(parsed.error));
  return parsed.data;
}

/** POST /auth/login: the read credentials, or the second credential, the only one granting the operate role. */
export function loginHandler(ctx: MonitoringContext): RequestHandler {
  const o = ctx.options;
  return (req, res) => {
    if (!o.enablePasswordLogin) {
      return sendProblem(res, 404, 'The password login is turned off on this host (enablePasswordLogin): sign in with single sign-on.');
    }
    const { username, password } = readCredentials(req.body);
    // Both comparisons always run: the time taken does not reveal which one matched.
    const operate =
      o.managementUsername !== null && o.managementPassword !== null
        ? Number(constantTimeEquals(username, o.managementUsername)) & Number(constantTimeEquals(password, o.managementPassword))
        : 0;
    const read = Number(constantTimeEquals(username, o.username)) & Number(constantTimeEquals(password, o.password));
    if (!operate && !read) return sendProblem(res, 401, 'Invalid username or password.');
    const role = operate ? 'operate' : 'read';
    const { token, expiresAtMs } = ctx.tokens.issue(username, role, 'password');
    noteAudit(res, { actor: username, role, method: 'password' });
    const body: LoginResponse = { token, expiresAt: toIso(expiresAtMs), username, canManage: role === 'operate' };
    res.setHeader('Cache-Control', 'no-store');
    sendJson(res, 200, body);
  };
}
