import type { EnvironmentLiveStatus, LiveConnectionView } from '../shared/environmentStatus.js';
import type { SessionView } from '../shared/session.js';

/** The status the sidebar and the tray show: the session's state until it is authenticated, then the live connection's. */
export function liveStatusOf(session: SessionView, hub: LiveConnectionView): { live: EnvironmentLiveStatus; message?: string } {
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
