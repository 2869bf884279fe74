import type { ApiOperation } from '../../server/src/contracts/api.js';

/**
 * The API operations the renderer may ask main to perform (`api.call`). The `auth.*`
 * operations are not among them: logging in goes through the session channels so that the
 * token never reaches the renderer; `health.get` is not a dashboard call.
 */
export type ProxiedOperation = Exclude<ApiOperation, 'health.get' | `auth.${string}`>;

/** The actions that change tasks or schedules: each asks the user first (typed for production). */
export const MANAGEMENT_ACTIONS = ['management.requeue', 'management.resume', 'management.cancel', 'management.retry', 'management.bulk'] as const satisfies readonly ProxiedOperation[];
export type ManagementAction = (typeof MANAGEMENT_ACTIONS)[number];

/** Whether `operation` changes tasks or schedules (a management action). */
export function isManagementAction(operation: string): operation is ManagementAction {
  return (MANAGEMENT_ACTIONS as readonly string[]).includes(operation);
}
