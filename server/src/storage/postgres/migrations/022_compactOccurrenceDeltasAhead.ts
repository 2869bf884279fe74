import { pgCompactOccurrenceTriggerFunctions } from '../readModels/readModelTriggerFunctions.js';

/**
 * PostgreSQL migration 22: the insert trigger of `pending_occurrences` steps aside, once, for an
 * insert whose writer appended its read-model deltas ahead of it (the catch-up's COPY, which knows
 * its rows' groups without reading them back: one small statement per transaction instead of the
 * transition table joined to the schedules). The functions' text is the live one
 * (`readModels/readModelTriggerFunctions.ts`), as migration 13's is for `tasks`.
 */
export const pgMigration022CompactOccurrenceDeltasAhead = pgCompactOccurrenceTriggerFunctions();
