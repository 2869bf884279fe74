import type { BulkOperation, SvcEvent } from '../contracts/index.js';
import type { BulkStart } from '../engine/operations/BulkRunner.js';
import type { ScheduleOperationResult } from '../engine/schedules/ScheduleManager.js';
import type { MonitoringStore } from '../storage/MonitoringStore.js';
import type { DeliveryStats } from './alerts/WebhookSender.js';
import type { TokenService } from './auth/TokenService.js';
import type { ClientAddressResolver } from './network/clientAddress.js';
import type { ResolvedOptions } from './options.js';

/** What the monitoring needs from an engine (full registration): schedule operations and events. */
export interface MonitoringEngine {
  schedules: {
    requeue(occurrenceId: string): Promise<ScheduleOperationResult>;
    resume(key: string): Promise<ScheduleOperationResult>;
    cancel(key: string): Promise<ScheduleOperationResult>;
  };
  on(event: 'event', listener: (e: SvcEvent) => void): unknown;
  /** Whether the engine can write (GET /health); absent: reported as ok. */
  health?(): { status: 'ok' | 'degraded' | 'failed'; unwrittenChanges?: number };
  /** Durations of the engine's store commits (metrics); absent on an engine without them. */
  observeCommits?(listener: (seconds: number) => void): () => void;
  off(event: 'event', listener: (e: SvcEvent) => void): unknown;
  /** Retry and bulk actions; absent on an engine without them (the endpoints answer NotSupported). */
  tasks?: {
    retry(id: string, actor: string): Promise<ScheduleOperationResult>;
    startBulk(input: BulkStart): BulkOperation;
    bulkStatus(operationId: string): BulkOperation | undefined;
    onBulkProgress(listener: (progress: BulkOperation) => void): void;
    offBulkProgress(listener: (progress: BulkOperation) => void): void;
  };
}

export const BASE_PATH = '/svc-monitoring';
export const API_PATH = `${BASE_PATH}/api`;
export const HUB_PATH = `${BASE_PATH}/hub`;

/** Shared by every handler factory. */
export interface MonitoringContext {
  store: MonitoringStore;
  options: ResolvedOptions;
  tokens: TokenService;
  /** Present in the full registration only. */
  engine?: MonitoringEngine;
  /** Whether the hub exists (full registration). */
  hubEnabled: boolean;
  /** The client address of a request, as the allow-list, the login limit and logs see it. */
  clients: ClientAddressResolver;
  /** Deliveries of alert messages (present when the host configured alert rules). */
  alertStats?: () => DeliveryStats;
}
