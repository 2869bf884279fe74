import type { Request, RequestHandler, Response } from 'express';
import { BULK_AUDIT_ACTIONS, BULK_ACTIONS, type BulkAction, type OperatorActionName, type OperatorAuditResult, type OperatorAuthMethod } from '../../contracts/index.js';
import type { Principal } from '../auth/TokenService.js';
import { MANAGEMENT_HOOK_ACTOR, managementActor } from '../management/managementActor.js';
import type { MonitoringContext } from '../MonitoringContext.js';
import type { OperatorAuditInput } from './OperatorAuditLog.js';

/** What a handler adds to the record of its answer (the signed-in user, a bulk action's filter and counts). */
export type AuditNote = Partial<Pick<OperatorAuditInput, 'actor' | 'method' | 'role' | 'bulk'>>;

/** Adds facts to the record the audit writes when this answer is sent. */
export function noteAudit(res: Response, note: AuditNote): void {
  res.locals.operatorAudit = { ...(res.locals.operatorAudit as AuditNote | undefined), ...note };
}

/** 2xx ok; 4xx refused (the status says why); 5xx error. */
export function auditResultOf(status: number): OperatorAuditResult {
  return status < 400 ? 'ok' : status < 500 ? 'refused' : 'error';
}

const TASK_ACTION = /^\/tasks\/([^/]+)\/(requeue|resume|cancel|retry)\/?$/i;
const BULK_ACTION = /^\/bulk\/([^/]+)\/?$/i;
const MAX_TARGET = 100;

/** The action and target of a management POST from its path under /management; undefined for anything else. */
function managementActionOf(req: Request): { action: OperatorActionName; targetId?: string } | undefined {
  if (req.method !== 'POST') return undefined;
  const task = TASK_ACTION.exec(req.path);
  if (task) {
    let id = task[1]!;
    try {
      id = decodeURIComponent(id);
    } catch {
      /* kept as sent */
    }
    return { action: task[2]!.toLowerCase() as OperatorActionName, targetId: id.toLowerCase().slice(0, MAX_TARGET) };
  }
  const bulk = BULK_ACTION.exec(req.path);
  const action = bulk ? BULK_ACTIONS.find((a) => a === bulk[1]!.toLowerCase()) : undefined;
  return action ? { action: BULK_AUDIT_ACTIONS[action as BulkAction] } : undefined;
}

/** Records `what` with the answer's status, once the answer is sent (unless `unrecorded` says the status is none of the audit's). */
function recordOnFinish(
  ctx: MonitoringContext,
  req: Request,
  res: Response,
  what: Pick<OperatorAuditInput, 'action' | 'targetId'>,
  fallbackActor: () => string,
  unrecorded: number,
  method?: OperatorAuthMethod,
): void {
  res.on('finish', () => {
    if (res.statusCode === unrecorded) return;
    const note = (res.locals.operatorAudit as AuditNote | undefined) ?? {};
    const principal = res.locals.principal as Principal | undefined;
    const message = res.locals.answerMessage as string | undefined;
    void ctx.audit.record({
      actor: note.actor ?? principal?.username ?? fallbackActor(),
      method: note.method ?? principal?.method ?? method,
      role: note.role ?? principal?.role,
      ...ctx.audit.requestFacts(req),
      ...what,
      result: auditResultOf(res.statusCode),
      status: res.statusCode,
      message,
      bulk: note.bulk,
    });
  });
}

/**
 * Mounted before the management gate: every management POST (requeue, resume, cancel, retry,
 * bulk) is recorded with its answer, the gate's 403 refusals included.
 */
export function auditManagement(ctx: MonitoringContext): RequestHandler {
  return (req, res, next) => {
    const what = managementActionOf(req);
    if (what) {
      const actor = () => {
        if (ctx.options.managementAuthorization === null) return 'anonymous';
        // The host's user when its hook named one; a request the hook refused without one is nobody's.
        const name = managementActor(req, res);
        return name === MANAGEMENT_HOOK_ACTOR && res.statusCode === 403 ? 'anonymous' : name;
      };
      // A call without a valid session (401) names nobody and costs an anonymous caller nothing: not recorded.
      recordOnFinish(ctx, req, res, what, actor, 401);
    }
    next();
  };
}

/**
 * Mounted before the login limiter on a sign-in route: success and failure (400, 401, 404) are
 * recorded with the sign-in method; a failed password sign-in names the user name it tried.
 */
export function auditSignIn(ctx: MonitoringContext, method: OperatorAuthMethod, attemptedUser: (req: Request) => string | undefined): RequestHandler {
  return (req, res, next) => {
    // The login limit's 429 checked no credential and would let one client write without bound: not recorded.
    recordOnFinish(ctx, req, res, { action: 'signIn' }, () => attemptedUser(req) ?? 'anonymous', 429, method);
    next();
  };
}
