import type { MonitoringEngine, SvcEvent } from '../../../contracts/index.js';
import type { MonitoringStore } from '../../MonitoringStore.js';
import { createPostgresScheduleOperations, type StorageScheduleOperations } from '../management/createPostgresScheduleOperations.js';
import type { PostgresStorage } from '../PostgresStorage.js';
import { createPostgresMonitoringStore } from './createPostgresMonitoringStore.js';

type EventListener = (e: SvcEvent) => void;

/**
 * What a local engine lends the monitoring: its schedule operations, its own events, and when it
 * has them its health and its retry and bulk actions (those need the engine that runs the rows).
 */
export interface LocalEngine {
  schedules: StorageScheduleOperations;
  on(event: 'event', listener: EventListener): unknown;
  off(event: 'event', listener: EventListener): unknown;
  health?: MonitoringEngine['health'];
  tasks?: MonitoringEngine['tasks'];
}

export interface PostgresMonitoringParts {
  store: MonitoringStore;
  /** Schedule operations (the local engine's, else storage operations) and the events of every instance. */
  engine: LocalEngine;
}

export function isPostgresStorage(storage: unknown): storage is PostgresStorage {
  return typeof storage === 'object' && storage !== null && (storage as { kind?: unknown }).kind === 'postgres';
}

/**
 * The monitoring of a PostgreSQL store: reads through the PostgreSQL monitoring store; events
 * are the local engine's own plus those every other instance NOTIFYs (its own notices skipped,
 * the local engine already delivers them); management is the local engine's, or, without one,
 * storage operations that any process may perform.
 */
export function postgresMonitoringParts(storage: PostgresStorage, local?: LocalEngine): PostgresMonitoringParts {
  const listeners = new Map<EventListener, (e: SvcEvent, origin: string) => void>();
  const health = local?.health?.bind(local);
  const engine: LocalEngine = {
    schedules: local?.schedules ?? createPostgresScheduleOperations(storage),
    ...(local?.tasks !== undefined && { tasks: local.tasks }),
    ...(health !== undefined && { health }),
    on(_event, listener) {
      if (listeners.has(listener)) return engine;
      const remote = (e: SvcEvent, origin: string) => {
        if (local === undefined || origin !== storage.events.id) listener(e);
      };
      listeners.set(listener, remote);
      storage.events.on('event', remote);
      local?.on('event', listener);
      return engine;
    },
    off(_event, listener) {
      const remote = listeners.get(listener);
      if (remote) storage.events.off('event', remote);
      listeners.delete(listener);
      local?.off('event', listener);
      return engine;
    },
  };
  return { store: createPostgresMonitoringStore(storage), engine };
}
