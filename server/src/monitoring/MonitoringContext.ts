import type { MonitoringEngine } from '../contracts/index.js';
import type { MonitoringStore } from '../storage/MonitoringStore.js';
import type { OperatorAuditStore } from '../storage/OperatorAuditStore.js';
import type { OperatorAuditLog } from './audit/OperatorAuditLog.js';
import type { DeliveryStats } from './alerts/WebhookSender.js';
import type { TokenService } from './auth/TokenService.js';
import type { ClientAddressResolver } from './network/clientAddress.js';
import type { ResolvedOptions } from './options.js';

export type { MonitoringEngine } from '../contracts/index.js';

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
  /** The operator audit trail: every sign-in, management action and refusal of one is recorded through it. */
  audit: OperatorAuditLog;
  /** Where the audit is kept and read (absent when the store has no audit table). */
  auditStore?: OperatorAuditStore;
  /** Deliveries of alert messages (present when the host configured alert rules). */
  alertStats?: () => DeliveryStats;
}
