import type { SvcEvent } from '../../server/src/contracts/events.js';
import type { NotificationTarget, VaultStatus } from './shared/viewTypes.js';
import type { EnvironmentStatusView } from './environmentStatus.js';

/** Everything main pushes to the renderer, on the single `svc-monitor:event` channel. */
export type RendererEvent =
  | { type: 'environments'; environments: EnvironmentStatusView[] }
  | { type: 'status'; environment: EnvironmentStatusView }
  | { type: 'svcEvent'; environmentId: string; event: SvcEvent }
  | { type: 'inbox'; unread: number; total: number }
  | { type: 'open'; target: NotificationTarget }
  | { type: 'vault'; status: VaultStatus };
