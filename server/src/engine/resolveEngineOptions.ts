import type { AuditLevel } from '../contracts/index.js';
import { DEFAULT_MAX_ABANDONED } from '../storage/common/abandonedRuns.js';
import type { EngineStore } from '../storage/EngineStore.js';
import { sqliteEngineStore, type SqliteStorage } from '../storage/openStorage.js';
import { NO_RETRY, resolveRetryPolicy, type RetryPolicy } from './RetryPolicy.js';
import type { EngineOptions } from './types.js';
import { OptionReader } from '../options/OptionReader.js';
import { AUDIT_LEVELS, UNSTORABLE_NAME } from './validation.js';
import { hasUnstorable } from './storableText.js';

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
  maxAbandoned: number;
  maxUnwrittenTasks: number;
  onUnwrittenFull: 'wait' | 'reject';
  /** How long a row taken ahead of a free worker may wait for it (ms) before it is handed back. */
  reservationBudgetMs: number;
  clock: () => number;
  onError: (error: unknown, where: string) => void;
}

const KNOWN = ['storage', 'store', 'queues', 'auditLevel', 'pollIntervalMs', 'logCapPerRun', 'retry', 'timeoutMs', 'stopGraceMs', 'maxAbandoned', 'maxUnwrittenTasks', 'onUnwrittenFull',
  'reservationBudgetMs', 'clock', 'onError'];
const QUEUE_KEYS = ['concurrency', 'capacity'];
const OWNER = 'createEngine';

/** Reads createEngine's options; every refusal is an OptionError naming `createEngine` and the option. */
export function resolveEngineOptions(options: EngineOptions): ResolvedEngineOptions {
  const read = new OptionReader<EngineOptions>(OWNER, options, KNOWN);
  let storage: SqliteStorage | undefined;
  let store: EngineStore;
  if (read.has('store')) {
    if (read.has('storage')) throw read.fail('store', 'cannot be given with option "storage": give one of them');
    const st = read.value('store') as Partial<EngineStore> | null;
    if (!st || typeof st !== 'object' || typeof st.commit !== 'function' || typeof st.recover !== 'function' || !st.schedules) {
      throw read.fail('store', 'must be an EngineStore');
    }
    store = st as EngineStore;
  } else {
    const s = read.value('storage') as Partial<SqliteStorage> | undefined;
    if (!s || typeof s !== 'object' || !s.db || typeof s.db.prepare !== 'function') throw read.fail('storage', 'must be a storage from openSqliteStorage()');
    if (s.readonly) throw read.fail('storage', 'is read-only; the engine needs a writable store');
    if (s.closed) throw read.fail('storage', 'is closed');
    storage = s as SqliteStorage;
    store = sqliteEngineStore(storage);
  }

  const queues = new Map<string, QueueConfig>();
  const queueOptions = read.child('queues');
  for (const name of queueOptions.keys()) {
    if (name.trim().length === 0) throw read.fail('queues', 'has an empty queue name');
    if (hasUnstorable(name)) throw read.fail('queues', `has a queue name that ${UNSTORABLE_NAME}`);
    const q = queueOptions.child(name, QUEUE_KEYS);
    const capacity = q.value('capacity') === Infinity ? Infinity : q.integer('capacity', Infinity, { min: 1 });
    queues.set(name, { name, concurrency: q.integer('concurrency', 4, { min: 1 }), capacity });
  }
  if (!queues.has('default')) queues.set('default', { name: 'default', concurrency: 4, capacity: Infinity });

  const timeoutMs = read.has('timeoutMs') ? read.integer('timeoutMs', 0, { min: 1 }) : undefined;
  return {
    storage,
    store,
    queues,
    auditLevel: read.oneOf('auditLevel', AUDIT_LEVELS, 'Full'),
    pollIntervalMs: read.integer('pollIntervalMs', 1000, { min: 1 }),
    logCapPerRun: read.integer('logCapPerRun', 1000, { min: 0 }),
    retry: resolveRetryPolicy(read.value('retry'), NO_RETRY, `${OWNER}: option "retry"`),
    timeoutMs,
    stopGraceMs: read.integer('stopGraceMs', 10_000, { min: 0 }),
    maxAbandoned: read.integer('maxAbandoned', DEFAULT_MAX_ABANDONED, { min: 0 }),
    maxUnwrittenTasks: read.integer('maxUnwrittenTasks', 100_000, { min: 1 }),
    onUnwrittenFull: read.oneOf('onUnwrittenFull', ['wait', 'reject'] as const, 'wait'),
    reservationBudgetMs: read.integer('reservationBudgetMs', 250, { min: 1 }),
    // Several hosts on one store share its clock (EngineStore.now); one host alone keeps its own.
    clock: read.fn<() => number>('clock') ?? (store.now !== undefined ? store.now.bind(store) : Date.now),
    onError: read.fn<(error: unknown, where: string) => void>('onError') ?? ((error, where) => console.error(`[svc-monitor engine] ${where}:`, error)),
  };
}
