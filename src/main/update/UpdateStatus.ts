/**
 * What the console's updater is doing, as the Help menu, the About box and the diagnostics
 * report show it. The updater (electron-updater behind `AppUpdater`) is the only writer; the
 * rest of the main process reads it through this interface.
 */
export type UpdateState = 'idle' | 'disabled' | 'checking' | 'up-to-date' | 'downloading' | 'downloaded' | 'error';

export interface UpdateStatus {
  state: UpdateState;
  /** The running version. */
  currentVersion: string;
  /** The newer version found (downloading or downloaded). */
  availableVersion?: string;
  /** 0–100 while downloading. */
  progressPercent?: number;
  /** Why the updater is disabled, or what went wrong (a refused checksum, an unreachable feed), in one line. */
  message?: string;
  /** ISO time of the last finished check. */
  checkedAtUtc?: string;
}

export interface AppUpdater {
  /** The current status (never throws). */
  status(): UpdateStatus;
  /** Checks the feed now; a manual check skips the staged rollout. Resolves with the status after the check; never rejects. */
  checkNow(options: { manual: boolean }): Promise<UpdateStatus>;
  /** Called on every status change; returns the unsubscribe function. */
  onStatus(listener: (status: UpdateStatus) => void): () => void;
  /** Restarts into a downloaded update (otherwise it is installed on quit). */
  restartToUpdate(): void;
  /** Stops the periodic check. */
  dispose(): void;
}
