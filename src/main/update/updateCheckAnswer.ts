import type { UpdateState, UpdateStatus } from './UpdateStatus.js';
import { describeUpdate } from '../support/diagnostics.js';

/** What Help → Check for updates answers: a heading, the details, and whether it offers Restart. */
export interface UpdateCheckAnswer {
  heading: string;
  detail: string;
  /** A downloaded version waits: the answer offers "Restart now" beside "Later". */
  offersRestart: boolean;
}

function heading(state: UpdateState): string {
  if (state === 'up-to-date') return 'Svc Monitor is up to date';
  if (state === 'disabled') return 'Updates are unavailable';
  if (state === 'error') return 'The update check failed';
  if (state === 'downloaded') return 'An update is ready to install';
  return 'An update is available';
}

export function updateCheckAnswer(status: UpdateStatus | undefined): UpdateCheckAnswer {
  if (!status) return { heading: 'Updates are unavailable', detail: describeUpdate(undefined), offersRestart: false };
  return { heading: heading(status.state), detail: describeUpdate(status), offersRestart: status.state === 'downloaded' };
}
