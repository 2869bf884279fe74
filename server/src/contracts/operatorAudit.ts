/**
 * The operator audit trail: one record per sign-in, per management action and per refusal of
 * one. Plain data: the renderer and the desktop main process load it at run time.
 */
import type { BulkAction, BulkFilter, BulkOperation } from './operations.js';
import type { IsoTimestamp } from './task.js';

/** How a session was signed in (the `method` claim of its JWT). */
export const OPERATOR_AUTH_METHODS = ['password', 'magic', 'oidc', 'token'] as const;
export type OperatorAuthMethod = (typeof OPERATOR_AUTH_METHODS)[number];

/** What an operator did: signed in, or one of the management actions. */
export const OPERATOR_ACTIONS = ['signIn', 'requeue', 'resume', 'cancel', 'retry', 'bulkRequeue', 'bulkRetry', 'bulkCancel'] as const;
export type OperatorActionName = (typeof OPERATOR_ACTIONS)[number];

/** ok: done; refused: answered 4xx (the status says why); error: the service could not answer (5xx). */
export const OPERATOR_AUDIT_RESULTS = ['ok', 'refused', 'error'] as const;
export type OperatorAuditResult = (typeof OPERATOR_AUDIT_RESULTS)[number];

/** The audit action of a bulk action. */
export const BULK_AUDIT_ACTIONS: Readonly<Record<BulkAction, OperatorActionName>> = {
  requeue: 'bulkRequeue',
  retry: 'bulkRetry',
  cancel: 'bulkCancel',
};

/** What a bulk action's record adds: its filter, the count confirmed and matched, then the counts it reached. */
export interface OperatorAuditBulkDetails {
  filter: BulkFilter;
  expectedCount: number;
  /** Rows the filter matched when the action started (absent when it did not start). */
  count?: number;
  operationId?: string;
  /** Running until the operation ends; then Completed or Failed with the counts reached. */
  state?: BulkOperation['state'];
  processed?: number;
  succeeded?: number;
  skipped?: number;
}

export interface OperatorAuditEntry {
  id: number;
  atUtc: IsoTimestamp;
  /** The user name of the session (the attempted one for a failed sign-in); `anonymous` without a session. */
  actor: string;
  method?: OperatorAuthMethod;
  role?: 'read' | 'operate';
  /** After the trusted-proxy rules. */
  clientAddress?: string;
  userAgent?: string;
  action: OperatorActionName;
  /** The task (or schedule) row acted on. */
  targetId?: string;
  result: OperatorAuditResult;
  /** The HTTP status of the answer. */
  status?: number;
  message?: string;
  bulk?: OperatorAuditBulkDetails;
}

/** GET /audit: newest first, the task lists' paging envelope. */
export interface OperatorAuditPage {
  items: OperatorAuditEntry[];
  totalCount: number;
  page: number;
  pageSize: number;
  totalPages: number;
}

/** Query of GET /audit. */
export interface OperatorAuditQuery {
  actor?: string;
  action?: OperatorActionName;
  target?: string;
  result?: OperatorAuditResult;
  from?: IsoTimestamp;
  to?: IsoTimestamp;
  page?: number;
  pageSize?: number;
}
