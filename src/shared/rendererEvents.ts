import type { SvcEvent } from '../../server/src/contracts/events.js';
import type { EnvironmentStatusView } from './environmentStatus.js';
import type { NotificationTarget } from './notifications.js';
import type { VaultStatus } from './vault.js';

/** Everything main pushes to the renderer, on the single renderer-event channel. */
export type RendererEvent =
  | { type: 'environments'; environments: EnvironmentStatusView[] }
  | { type: 'status'; environment: EnvironmentStatusView }
  | { type: 'svcEvent'; environmentId: string; event: SvcEvent }
  | { type: 'inbox'; unread: number; total: number }
  | { type: 'open'; target: NotificationTarget }
  | { type: 'vault'; status: VaultStatus };
