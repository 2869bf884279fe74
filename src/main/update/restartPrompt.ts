import type { UpdateStatus } from './UpdateStatus.js';

export interface RestartNotice {
  title: string;
  body: string;
}

/**
 * A status listener that asks for a restart once per downloaded version: `show` displays
 * the notice and calls `restart` when the user clicks it. Without a click the update is
 * installed when the console quits.
 */
export function restartPromptListener(show: (notice: RestartNotice) => void): (status: UpdateStatus) => void {
  let announced: string | undefined;
  return (status) => {
    if (status.state !== 'downloaded' || !status.availableVersion || status.availableVersion === announced) return;
    announced = status.availableVersion;
    show({
      title: `Svc Monitor ${status.availableVersion} is ready`,
      body: 'Click to restart now, or it is installed the next time you quit.',
    });
  };
}
