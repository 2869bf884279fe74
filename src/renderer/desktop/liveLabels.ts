import type { EnvironmentLiveStatus } from '../../shared/environmentStatus.js';

/** What the sidebar and title strip say for each live status. */
export const LIVE_LABEL: Record<EnvironmentLiveStatus, string> = {
  connecting: 'Connecting…',
  connected: 'Connected',
  reconnecting: 'Reconnecting…',
  polling: 'Polling',
  'logged-out': 'Logged out',
  'relogin-required': 'Log in again',
  error: 'Error',
};
