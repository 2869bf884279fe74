// SEAM (temporary): replaced by the durable-schedules implementation. Until then every
// operation reports NotSupported so that nothing pretends to work.
import type { EngineInternals } from '../EngineInternals.js';
import type { ScheduleManager } from './ScheduleManager.js';
export type { DurableScheduleDefinition, ScheduleManager, ScheduleOperationResult } from './ScheduleManager.js';

export function createScheduleManager(_internals: EngineInternals): ScheduleManager {
  const unsupported = async () => ({ status: 'NotSupported' as const, message: 'Durable schedules are not available in this build.' });
  return {
    upsert: async () => {
      throw new Error('Durable schedules are not available in this build.');
    },
    cancel: unsupported,
    resume: unsupported,
    requeue: unsupported,
  };
}
