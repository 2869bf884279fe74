import type { Database } from 'better-sqlite3';
import { failureFingerprint } from '../../../contracts/failureFingerprint.js';

// The fingerprint itself is a contract: the desktop groups its inbox with the same function.
export { failureFingerprint };

/**
 * Registers the SQL function `svc_failure_fingerprint(text)` used by the failure-group
 * triggers: every connection that writes task rows must have it (openDatabase registers it).
 */
export function registerFailureFingerprint(db: Database): void {
  db.function('svc_failure_fingerprint', { deterministic: true }, (text: unknown) =>
    failureFingerprint(typeof text === 'string' ? text : text === null || text === undefined ? null : String(text)),
  );
}
