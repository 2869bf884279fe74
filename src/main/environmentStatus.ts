import type { Environment } from './environments/environment.js';
import type { HubState } from './shared/viewTypes.js';
import type { SessionView } from './session/sessionView.js';

/** The one status the sidebar shows for an environment. */
export type LiveStatus = 'connecting' | 'connected' | 'reconnecting' | 'polling' | 'logged-out' | 'relogin-required' | 'error';

export interface EnvironmentStatusView extends Environment {
  session: SessionView;
  hub: { state: HubState; message?: string };
  live: LiveStatus;
  /** Sticky text for `error` / `relogin-required` / `reconnecting`. */
  statusMessage?: string;
  /**
   * Set while failures of this environment would go unnoticed: it needs a (re-)login, it can
   * only poll, or its live connection has been down longer than the grace period.
   */
  notWatching?: string;
}

export function liveStatusOf(session: SessionView, hub: { state: HubState; message?: string }): { live: LiveStatus; message?: string } {
  switch (session.auth) {
    case 'starting':
      return { live: 'connecting' };
    case 'logged-out':
      return { live: 'logged-out' };
    case 'relogin-required':
      return { live: 'relogin-required', message: session.message ?? 'Log in again' };
    case 'error':
      return { live: 'error', message: session.message ?? 'Unknown error' };
    case 'authenticated':
      switch (hub.state) {
        case 'connected':
          return { live: 'connected' };
        case 'reconnecting':
          return { live: 'reconnecting', ...(hub.message ? { message: hub.message } : {}) };
        case 'unavailable':
          return { live: 'polling', ...(hub.message ? { message: hub.message } : {}) };
        case 'error':
          return { live: 'error', message: hub.message ?? 'The live connection failed' };
        default:
          return { live: 'connecting' };
      }
  }
}
