import { StoreUnavailableError } from './EngineStore.js';
import { classifyTrouble } from './postgres/connection/connectionTrouble.js';

/**
 * Whether an error means the store could not answer now and the same request may succeed later:
 * a StoreUnavailableError, or a PostgreSQL connection that was lost (terminated, server restart)
 * or a transaction rolled back by a conflict, as a read or write that does not wrap its errors
 * throws them. It sits beside openStorage (not in common/) because it knows both backends' errors.
 */
export function isStoreUnavailable(err: unknown): boolean {
  return err instanceof StoreUnavailableError || classifyTrouble(err) !== null;
}
