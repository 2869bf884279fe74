import type { LiveState } from '../../server/src/contracts/liveConnection.js';
import type { Environment } from './environment.js';
import type { SessionView } from './session.js';

/** The live connection of one environment: a state of the contracts' one vocabulary and why. */
export interface LiveConnectionView {
  state: LiveState;
  message?: string;
}

/**
 * The one status the sidebar and the tray show for an environment: the session's state while
 * it is not authenticated, else its live connection's (`polling` when the host has no hub).
 */
export type EnvironmentLiveStatus = 'connecting' | 'connected' | 'reconnecting' | 'polling' | 'logged-out' | 'relogin-required' | 'error';

export interface EnvironmentStatusView extends Environment {
  session: SessionView;
  hub: LiveConnectionView;
  live: EnvironmentLiveStatus;
  /** Sticky text for `error` / `relogin-required` / `reconnecting`. */
  statusMessage?: string;
  /**
   * Set while failures of this environment would go unnoticed: it needs a (re-)login, it can
   * only poll, or its live connection has been down longer than the grace period.
   */
  notWatching?: string;
}
