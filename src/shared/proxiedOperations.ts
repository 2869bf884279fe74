import type { ApiOperation } from '../../server/src/contracts/api.js';

/**
 * The API operations the renderer may ask main to perform (`api.call`). The `auth.*`
 * operations are not among them: logging in goes through the session channels so that the
 * token never reaches the renderer; `health.get` is not a dashboard call.
 */
export type ProxiedOperation = Exclude<ApiOperation, 'health.get' | `auth.${string}`>;
