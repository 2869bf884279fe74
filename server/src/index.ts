// Public API of svc-monitor-server: a plain list of exports.
export { createEngine, TaskEngine } from './engine/Engine.js';
export type {
  CancelResult, DispatchOptions, Engine, EngineEventListener, EngineOptions, HandleOptions, QueueOptions, RecurringOptions,
  StopOptions, TaskContext, TaskHandler, TaskLogger,
} from './engine/types.js';
export type { RetryOptions, BackoffKind } from './engine/RetryPolicy.js';
export type { RateLimit } from './engine/RateLimiter.js';
export type { EngineInternals } from './engine/EngineInternals.js';
export type { DurableScheduleDefinition, ScheduleManager } from './engine/schedules/index.js';
export { parseDuration } from './engine/duration.js';
export { openSqliteStorage } from './storage/sqlite/openSqliteStorage.js';
export type { OpenSqliteStorageOptions } from './storage/sqlite/openSqliteStorage.js';
export type { SqliteStorage } from './storage/Storage.js';
export { createSqliteEngineStore } from './storage/sqlite/createSqliteEngineStore.js';
export { StoreUnavailableError, isScheduleRow } from './storage/EngineStore.js';
export type * from './storage/EngineStore.js';
export { openDatabase } from './storage/sqlite/connection/openDatabase.js';
export type { OpenDatabaseOptions } from './storage/sqlite/connection/openDatabase.js';
export { migrate } from './storage/sqlite/migrate.js';
export { migrations } from './storage/sqlite/migrations/index.js';
export { rebuildReadModelsSql } from './storage/sqlite/readModels/rebuildReadModels.js';
export { toIso } from './storage/common/time.js';
export * from './contracts/index.js';
export { createMonitoring } from './monitoring/createMonitoring.js';
export type { Monitoring, MonitoringSource, MonitoringStorage } from './monitoring/createMonitoring.js';
export { MonitoringOptionError } from './monitoring/options.js';
export type { MonitoringOptions, MonitoringLogger } from './monitoring/options.js';
export type { AuditLineLogger } from './monitoring/audit/auditLineLogger.js';
export type { MonitoringStore } from './storage/MonitoringStore.js';
export { createSqliteMonitoringStore } from './storage/sqlite/monitoring/createSqliteMonitoringStore.js';
export { openPostgresStorage } from './storage/postgres/openPostgresStorage.js';
export type { OpenPostgresStorageOptions } from './storage/postgres/openPostgresStorage.js';
export type { PostgresStorage, PostgresTarget } from './storage/postgres/PostgresStorage.js';
export type { PostgresEventBus } from './storage/postgres/events/PostgresEventBus.js';
export { createPostgresMonitoringStore } from './storage/postgres/monitoring/createPostgresMonitoringStore.js';
