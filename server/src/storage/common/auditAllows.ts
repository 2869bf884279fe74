import type { AuditLevel } from '../../contracts/index.js';

/** Whether a transition is recorded at this audit level (Full: all; ErrorsOnly: with error text; None: none). */
export function auditAllows(level: AuditLevel, exception: string | null | undefined): boolean {
  if (level === 'Full') return true;
  if (level === 'ErrorsOnly') return exception !== null && exception !== undefined;
  return false;
}
