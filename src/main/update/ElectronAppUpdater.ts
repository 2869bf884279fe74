import type { AppUpdater as UpdaterEngine, ProgressInfo, UpdateCheckResult, UpdateInfo } from 'electron-updater';
import { describeUpdateError } from './describeUpdateError.js';
import type { UpdateFeed } from './updateFeed.js';
import type { AppUpdater, UpdateStatus } from './UpdateStatus.js';
import type { AnswerProxyLogin } from '../network/loginRequestFetch.js';

/** How often the console looks for a new version while it runs. */
export const UPDATE_CHECK_INTERVAL_MS = 12 * 60 * 60 * 1000;

export interface UpdaterLog {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface ElectronAppUpdaterOptions {
  currentVersion: string;
  feed: UpdateFeed;
  /** Makes electron-updater's updater for this platform; called once, at the first check, and only when the feed is usable. */
  createEngine: () => UpdaterEngine;
  log: UpdaterLog;
  /**
   * An AppImage update was installed under a new file name (the old file is gone): what
   * points at the old path (the autostart entry, the link handler's desktop entry) must follow.
   */
  onAppImageRenamed?: (path: string) => void;
  intervalMs?: number;
  now?: () => Date;
  /**
   * Credentials for a proxy that asks (electron-updater raises `login` on its requests; unanswered,
   * the request would wait for ever). Absent: every such request is cancelled (it fails with the 407).
   */
  proxyLogin?: AnswerProxyLogin;
}

/**
 * The console's updater: electron-updater's platform updater behind the `AppUpdater`
 * interface. It checks at start and every 12 hours, downloads a newer version in the
 * background, installs it on quit (or at once through restartToUpdate), and turns every
 * refusal (unreachable feed, altered checksum, unsigned installer) into one status line and
 * one log line; it never throws and never retries on its own before the next check.
 * A staged rollout (`stagingPercentage` in the feed) holds back the periodic checks of the
 * users outside it; a manual check takes the new version regardless.
 */
export class ElectronAppUpdater implements AppUpdater {
  private current: UpdateStatus;
  private readonly listeners = new Set<(status: UpdateStatus) => void>();
  private engine: UpdaterEngine | undefined;
  private inFlight: Promise<UpdateStatus> | undefined;
  private manual = false;
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly now: () => Date;

  constructor(private readonly options: ElectronAppUpdaterOptions) {
    this.now = options.now ?? (() => new Date());
    const { feed, currentVersion } = options;
    this.current = feed.kind === 'disabled' ? { state: 'disabled', currentVersion, message: feed.reason } : { state: 'idle', currentVersion };
    if (feed.kind === 'disabled') options.log.info(`updater: off: ${feed.reason}`);
  }

  /** Checks now, then every 12 hours (or `intervalMs`). */
  start(): void {
    if (this.current.state === 'disabled' || this.timer) return;
    void this.checkNow({ manual: false });
    this.timer = setInterval(() => void this.checkNow({ manual: false }), this.options.intervalMs ?? UPDATE_CHECK_INTERVAL_MS);
    this.timer.unref?.();
  }

  status(): UpdateStatus {
    return { ...this.current };
  }

  onStatus(listener: (status: UpdateStatus) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  checkNow(options: { manual: boolean }): Promise<UpdateStatus> {
    const { state } = this.current;
    // Nothing to look for: off, or a version already on its way or waiting for the restart.
    if (state === 'disabled' || state === 'downloading' || state === 'downloaded') return Promise.resolve(this.status());
    if (this.inFlight) {
      if (options.manual) this.manual = true;
      return this.inFlight;
    }
    this.manual = options.manual;
    this.inFlight = this.check().finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  restartToUpdate(): void {
    if (this.current.state !== 'downloaded' || !this.engine) return;
    try {
      this.options.log.info(`updater: restarting into ${this.current.availableVersion ?? 'the new version'}`);
      this.engine.quitAndInstall(false, true);
    } catch (err) {
      this.fail(err);
    }
  }

  dispose(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.listeners.clear();
  }

  private async check(): Promise<UpdateStatus> {
    let engine: UpdaterEngine;
    try {
      engine = this.engine ?? this.wire(this.options.createEngine());
    } catch (err) {
      this.fail(err);
      return this.status();
    }
    try {
      const result: UpdateCheckResult | null = await engine.checkForUpdates();
      if (result === null) this.set({ state: 'disabled', message: 'The updater is inactive in this build.' });
      // The download reports through the engine's events; its promise is not needed here.
      void result?.downloadPromise?.catch(() => undefined);
    } catch (err) {
      this.fail(err);
    }
    return this.status();
  }

  private wire(engine: UpdaterEngine): UpdaterEngine {
    const { log, feed } = this.options;
    engine.autoDownload = true;
    engine.autoInstallOnAppQuit = true;
    engine.logger = {
      info: (m?: unknown) => log.info(`updater: ${String(m)}`),
      warn: (m?: unknown) => log.warn(`updater: ${String(m)}`),
      error: (m?: unknown) => log.error(`updater: ${String(m)}`),
    };
    if (feed.kind === 'url') engine.setFeedURL({ provider: 'generic', url: feed.url });
    // The updater's own session: a refusal is told by a second ask within a minute (no request identity here).
    engine.on('login', (authInfo, answerWith) => {
      // Electron's login callback: no arguments cancels (the request gets the 407).
      const callback = answerWith as (username?: string, password?: string) => void;
      const answer = this.options.proxyLogin;
      if (!authInfo.isProxy || !answer) return callback();
      answer({ host: authInfo.host, port: authInfo.port, scheme: authInfo.scheme, ...(authInfo.realm ? { realm: authInfo.realm } : {}) }, { scope: 'updater' }).then(
        (credentials) => (credentials ? callback(credentials.username, credentials.password) : callback()),
        (err: unknown) => {
          log.warn(`updater: proxy login failed: ${err instanceof Error ? err.message : String(err)}`);
          callback();
        },
      );
    });
    const inRollout = engine.isUserWithinRollout;
    engine.isUserWithinRollout = (info: UpdateInfo) => (this.manual ? true : inRollout(info));
    engine.on('checking-for-update', () => this.set({ state: 'checking', message: undefined }));
    engine.on('update-not-available', (info: UpdateInfo) => this.set({ state: 'up-to-date', checkedAtUtc: this.now().toISOString(), availableVersion: undefined, message: this.heldBack(info) }));
    engine.on('update-available', (info: UpdateInfo) => this.set({ state: 'downloading', availableVersion: info.version, progressPercent: 0, checkedAtUtc: this.now().toISOString(), message: undefined }));
    engine.on('download-progress', (p: ProgressInfo) => this.set({ state: 'downloading', progressPercent: Math.max(0, Math.min(100, Math.round(p.percent))) }));
    engine.on('update-downloaded', (info: UpdateInfo) => this.set({ state: 'downloaded', availableVersion: info.version, progressPercent: 100, message: undefined }));
    engine.on('error', (err: unknown) => this.fail(err));
    engine.on('appimage-filename-updated', (path: string) => {
      log.info(`updater: the AppImage is now ${path}`);
      this.options.onAppImageRenamed?.(path);
    });
    this.engine = engine;
    return engine;
  }

  /** A newer version the staged rollout holds back for this user, said as such. */
  private heldBack(info: UpdateInfo): string | undefined {
    if (info.stagingPercentage === undefined || info.version === this.current.currentVersion) return undefined;
    return `Version ${info.version} is rolling out to ${info.stagingPercentage}% of users; Check for updates gets it now.`;
  }

  private fail(err: unknown): void {
    const message = describeUpdateError(err);
    const repeated = this.current.state === 'error' && this.current.message === message;
    this.set({ state: 'error', message, progressPercent: undefined, checkedAtUtc: this.now().toISOString() });
    if (!repeated) this.options.log.warn(`updater: ${message}`);
  }

  private set(change: Partial<UpdateStatus>): void {
    const next = { ...this.current, ...change };
    for (const key of Object.keys(next) as Array<keyof UpdateStatus>) if (next[key] === undefined) delete next[key];
    this.current = next;
    for (const listener of this.listeners) {
      try {
        listener(this.status());
      } catch (err) {
        this.options.log.error(`updater: a status listener failed: ${(err as Error).message}`);
      }
    }
  }
}
