import type { ApiOperation, ApiParams, ApiResult } from '../../server/src/contracts/api.js';
import type { SvcEvent } from '../../server/src/contracts/events.js';
import type { BulkOperation } from '../../server/src/contracts/operations.js';
import type { MonitoringConfig } from '../../server/src/contracts/task.js';
import type { LiveState } from '../../server/src/contracts/liveConnection.js';
import type { Platform, SessionInfo } from '../../src/renderer/platform/Platform.js';

export type Handler<Op extends ApiOperation> = (params: ApiParams<Op>) => ApiResult<Op> | Promise<ApiResult<Op>>;

export interface FakePlatform extends Platform {
  calls: { op: ApiOperation; params: unknown }[];
  callsOf(op: ApiOperation): unknown[];
  handle<Op extends ApiOperation>(op: Op, handler: Handler<Op>): void;
  stored: SessionInfo | null;
  live: { connects: number; stops: number; emit(event: SvcEvent): void; setState(state: LiveState, detail?: string): void };
  /** Delivers a BulkProgress event to whoever follows bulk progress. */
  bulkProgress: { emit(progress: BulkOperation): void; followers(): number };
  notifications: { title: string; body: string }[];
}

export const CONFIG: MonitoringConfig = {
  apiBasePath: '/svc-monitoring/api',
  uiBasePath: '/svc-monitoring',
  signalRHubPath: '/svc-monitoring/hub',
  requireAuthentication: true,
  uiEnabled: true,
  managementEnabled: false,
  eventDebounceMs: 1000,
  passwordLoginEnabled: true,
};

/** A Platform that records every call and answers from per-operation handlers (unhandled → rejects). */
export function createFakePlatform(options: { config?: Partial<MonitoringConfig>; session?: SessionInfo | null; manage?: boolean; hostChrome?: boolean } = {}): FakePlatform {
  const handlers = new Map<ApiOperation, (p: unknown) => unknown>();
  const calls: { op: ApiOperation; params: unknown }[] = [];
  let onEvent: ((e: SvcEvent) => void) | null = null;
  let onState: ((s: LiveState, d?: string) => void) | null = null;
  const notifications: { title: string; body: string }[] = [];
  const bulkFollowers = new Set<(p: BulkOperation) => void>();
  const platform: FakePlatform = {
    name: 'fake',
    capabilities: { manage: options.manage ?? false, notifications: false, hostChrome: options.hostChrome ?? false },
    calls,
    callsOf: (op) => calls.filter((c) => c.op === op).map((c) => c.params),
    stored: options.session ?? null,
    async call<Op extends ApiOperation>(op: Op, params: ApiParams<Op>): Promise<ApiResult<Op>> {
      calls.push({ op, params });
      const handler = handlers.get(op);
      if (!handler) throw new Error(`fake platform: no handler for ${op}`);
      return (await handler(params)) as ApiResult<Op>;
    },
    handle(op, handler) {
      handlers.set(op, handler as (p: unknown) => unknown);
    },
    session: {
      load: () => platform.stored,
      save: (s) => {
        platform.stored = s;
      },
      clear: () => {
        platform.stored = null;
      },
    },
    connectLive(e, s) {
      onEvent = e;
      onState = s;
      platform.live.connects += 1;
      s('connecting');
      return {
        stop: async () => {
          platform.live.stops += 1;
          onEvent = null;
          onState = null;
        },
      };
    },
    followBulkProgress(onProgress) {
      bulkFollowers.add(onProgress);
      return () => bulkFollowers.delete(onProgress);
    },
    bulkProgress: {
      emit: (progress) => bulkFollowers.forEach((f) => f(progress)),
      followers: () => bulkFollowers.size,
    },
    notify: (title, body) => {
      notifications.push({ title, body });
    },
    live: {
      connects: 0,
      stops: 0,
      emit: (event) => onEvent?.(event),
      setState: (state, detail) => onState?.(state, detail),
    },
    notifications,
  };
  platform.handle('config.get', () => ({ ...CONFIG, ...options.config }));
  return platform;
}

export function svcEvent(kind: SvcEvent['kind'], taskId = '11111111-1111-4111-8111-111111111111', extra: Partial<SvcEvent> = {}): SvcEvent {
  return {
    kind,
    taskId,
    eventDateUtc: new Date().toISOString(),
    severity: kind === 'Failed' ? 'Error' : 'Information',
    taskType: 'Demo.Billing.SendInvoice',
    message: `${kind} event`,
    queueName: 'default',
    ...extra,
  };
}
