import type { AuditLevel } from '../contracts/index.js';
import type { EngineStore } from '../storage/EngineStore.js';
import { createSqliteEngineStore } from '../storage/sqlite/createSqliteEngineStore.js';
import type { SqliteStorage } from '../storage/Storage.js';
import { NO_RETRY, resolveRetryPolicy, type RetryPolicy } from './RetryPolicy.js';
import type { EngineOptions } from './types.js';
import { assertKnownKeys, assertPlainObject, checkAuditLevel, checkInt } from './validation.js';

export interface QueueConfig {
  name: string;
  concurrency: number;
  capacity: number;
}

export interface ResolvedEngineOptions {
  storage: SqliteStorage | undefined;
  store: EngineStore;
  queues: Map<string, QueueConfig>;
  auditLevel: AuditLevel;
  pollIntervalMs: number;
  logCapPerRun: number;
  retry: RetryPolicy;
  timeoutMs: number | undefined;
  stopGraceMs: number;
  clock: () => number;
  onError: (error: unknown, where: string) => void;
}

const KNOWN = new Set([
  'storage', 'store', 'queues', 'auditLevel', 'pollIntervalMs', 'logCapPerRun', 'retry', 'timeoutMs', 'stopGraceMs', 'clock', 'onError',
]);
const QUEUE_KEYS = new Set(['concurrency', 'capacity']);

/** Validates createEngine options; every error names the option (`createEngine: option "x" ...`). */
export function resolveEngineOptions(options: EngineOptions): ResolvedEngineOptions {
  const at = (name: string) => `createEngine: option "${name}"`;
  assertPlainObject(options, 'createEngine: options');
  assertKnownKeys(options, KNOWN, 'createEngine');
  let storage: SqliteStorage | undefined;
  let store: EngineStore;
  if (options.store !== undefined) {
    if (options.storage !== undefined) throw new TypeError(`createEngine: give either option "storage" or option "store", not both`);
    const st = options.store as Partial<EngineStore> | null;
    if (!st || typeof st !== 'object' || typeof st.commit !== 'function' || typeof st.recover !== 'function' || !st.schedules) {
      throw new TypeError(`${at('store')} must be an EngineStore`);
    }
    store = st as EngineStore;
  } else {
    const s = options.storage as Partial<SqliteStorage> | undefined;
    if (!s || typeof s !== 'object' || !s.db || typeof s.db.prepare !== 'function') {
      throw new TypeError(`${at('storage')} must be a storage from openSqliteStorage()`);
    }
    if (s.readonly) throw new TypeError(`${at('storage')} is read-only; the engine needs a writable store`);
    if (s.closed) throw new TypeError(`${at('storage')} is closed`);
    storage = s as SqliteStorage;
    store = createSqliteEngineStore(storage);
  }

  const queues = new Map<string, QueueConfig>();
  if (options.queues !== undefined) {
    assertPlainObject(options.queues, at('queues'));
    for (const [name, q] of Object.entries(options.queues)) {
      if (name.trim().length === 0) throw new TypeError(`${at('queues')}: queue names must be non-empty`);
      const what = `${at(`queues.${name}`)}`;
      assertPlainObject(q, what);
      assertKnownKeys(q, QUEUE_KEYS, what);
      const concurrency = checkInt(q.concurrency, `${at(`queues.${name}.concurrency`)}`, 1) ?? 4;
      let capacity = Infinity;
      if (q.capacity !== undefined && q.capacity !== Infinity) {
        capacity = checkInt(q.capacity, `${at(`queues.${name}.capacity`)}`, 1)!;
      }
      queues.set(name, { name, concurrency, capacity });
    }
  }
  if (!queues.has('default')) queues.set('default', { name: 'default', concurrency: 4, capacity: Infinity });

  const pollIntervalMs = checkInt(options.pollIntervalMs, at('pollIntervalMs'), 1) ?? 1000;
  const logCapPerRun = checkInt(options.logCapPerRun, at('logCapPerRun'), 0) ?? 1000;
  const timeoutMs = checkInt(options.timeoutMs, at('timeoutMs'), 1);
  const stopGraceMs = checkInt(options.stopGraceMs, at('stopGraceMs'), 0) ?? 10_000;
  if (options.clock !== undefined && typeof options.clock !== 'function') throw new TypeError(`${at('clock')} must be a function`);
  if (options.onError !== undefined && typeof options.onError !== 'function') {
    throw new TypeError(`${at('onError')} must be a function`);
  }
  return {
    storage,
    store,
    queues,
    auditLevel: checkAuditLevel(options.auditLevel, at('auditLevel')) ?? 'Full',
    pollIntervalMs,
    logCapPerRun,
    retry: resolveRetryPolicy(options.retry, NO_RETRY, at('retry')),
    timeoutMs,
    stopGraceMs,
    clock: (options.clock as (() => number) | undefined) ?? Date.now,
    onError: (options.onError as ((error: unknown, where: string) => void) | undefined) ?? ((error, where) => console.error(`[svc-monitor engine] ${where}:`, error)),
  };
}
