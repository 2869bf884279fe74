import type { SvcEvent } from '../../server/src/contracts/events.js';
import type { BulkOperation } from '../../server/src/contracts/operations.js';
import type { EnvironmentStatusView } from './environmentStatus.js';
import type { InboxChange } from './inbox.js';
import type { NotificationTarget } from './notifications.js';
import type { ProxyLoginRequest } from './proxyLogin.js';
import type { VaultStatus } from './vault.js';

/** Everything main pushes to the renderer, on the single renderer-event channel. */
export type RendererEvent =
  | { type: 'environments'; environments: EnvironmentStatusView[] }
  | { type: 'status'; environment: EnvironmentStatusView }
  | { type: 'svcEvent'; environmentId: string; event: SvcEvent }
  /** A bulk action's progress, as the environment's hub reported it (BulkProgress). */
  | { type: 'bulkProgress'; environmentId: string; progress: BulkOperation }
  /** The inbox changed: its counts and what changed (the renderer applies it to its copy). */
  | { type: 'inbox'; unread: number; total: number; changes: InboxChange[] }
  | { type: 'open'; target: NotificationTarget }
  | { type: 'vault'; status: VaultStatus }
  /** A proxy asks for credentials: the prompt to show (answered on `proxy.answer`). */
  | { type: 'proxyLogin'; request: ProxyLoginRequest };
