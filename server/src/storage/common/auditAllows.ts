import type { AuditLevel } from '../../contracts/index.js';

/** Whether a transition is recorded at this audit level (Full: all; ErrorsOnly: with error text; None: none). */
export function auditAllows(level: AuditLevel, exception: string | null | undefined): boolean {
  if (level === 'Full') return true;
  if (level === 'ErrorsOnly') return exception !== null && exception !== undefined;
  return false;
}

/** The audit levels that record a transition without error text (a new row's Pending, a promotion). */
export const LEVELS_RECORDING_PLAIN_TRANSITIONS: readonly AuditLevel[] = (['Full', 'ErrorsOnly', 'None'] as const).filter((level) => auditAllows(level, null));
