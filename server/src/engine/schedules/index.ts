import type { OperationResult } from '../../contracts/index.js';
import type { ScheduleRow } from '../../storage/EngineStore.js';
import { noSuchTask } from '../../storage/common/scheduleOperationRefusals.js';
import type { EngineInternals } from '../EngineInternals.js';
import { hasUnstorable } from '../storableText.js';
import { cancelScheduleRow } from './cancelSchedule.js';
import { OccurrenceMaterializer, type MaterializerOptions } from './OccurrenceMaterializer.js';
import { requeueOccurrence } from './requeueOccurrence.js';
import { resumeScheduleRow } from './resumeSchedule.js';
import type { ScheduleManager } from './ScheduleManager.js';
import { upsertSchedule } from './upsertSchedule.js';

export type { DurableScheduleDefinition, ScheduleManager } from './ScheduleManager.js';
export { ScheduleOperationError } from './ScheduleManager.js';
export { OccurrenceMaterializer, DEFAULT_MATERIALIZER_OPTIONS, type MaterializerOptions, type MaterializeOutcome } from './OccurrenceMaterializer.js';
export { planOccurrences, type OccurrencePlan, type PlanInput } from './MisfirePlanner.js';

/** Options of durable schedules (createEngine may pass them through as `schedules`). */
export type ScheduleManagerOptions = Partial<MaterializerOptions>;

export interface DurableScheduleManager extends ScheduleManager {
  /** The ticker registered on the engine; tests may call `tick(now)` directly. */
  readonly materializer: OccurrenceMaterializer;
}

/**
 * The schedule manager exposed as `engine.schedules`. Registers the occurrence materializer as an
 * engine ticker (every `intervalMs`, default 1 s).
 */
export function createScheduleManager(internals: EngineInternals, options: ScheduleManagerOptions = {}): DurableScheduleManager {
  const materializer = new OccurrenceMaterializer(internals, options);
  internals.addTicker('occurrence-materializer', (now) => materializer.tick(now), materializer.options.intervalMs);
  const { schedules } = internals.store;

  const byKey = async (key: string, run: (row: ScheduleRow) => Promise<OperationResult>): Promise<OperationResult> => {
    if (typeof key !== 'string' || key === '') return { status: 'NotFound', message: 'A schedule key is required.' };
    // No schedule has a key a store cannot keep (upsert refuses one): not looked up.
    if (hasUnstorable(key)) return { status: 'NotFound', message: `No durable schedule with key "${key}".` };
    const row = await schedules.findByKey(key);
    return row ? run(row) : { status: 'NotFound', message: `No durable schedule with key "${key}".` };
  };
  const byId = async (id: string, run: (row: ScheduleRow) => Promise<OperationResult>): Promise<OperationResult> => {
    const row = typeof id === 'string' ? await schedules.findById(id) : undefined;
    return row ? run(row) : noSuchTask();
  };

  return {
    materializer,
    upsert: async (definition) => upsertSchedule(internals, definition),
    cancel: (key) => byKey(key, (row) => cancelScheduleRow(internals, row)),
    resume: (key) => byKey(key, (row) => resumeScheduleRow(internals, materializer, row)),
    requeue: async (occurrenceId) => requeueOccurrence(internals, occurrenceId),
    cancelTask: (id) => byId(id, (row) => cancelScheduleRow(internals, row)),
    resumeTask: (id) => byId(id, (row) => resumeScheduleRow(internals, materializer, row)),
  };
}
