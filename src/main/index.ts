/**
 * Electron wiring of the desktop console. Thin on purpose: every decision lives in plain
 * Node services (ConsoleServices and friends) that are tested without Electron.
 */
import { app, autoUpdater as nativeAutoUpdater, BrowserWindow, clipboard, crashReporter, dialog, Menu, net, Notification, powerMonitor, safeStorage, session, shell, type Session } from 'electron';
import electronUpdater from 'electron-updater';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { arch, release } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConsoleServices } from './ConsoleServices.js';
import { electronDeclaresScheme, registerAppImageProtocol } from './deepLinks/appImageProtocol.js';
import type { KeytarLike } from './credentials/secretBackend.js';
import { DEEP_LINK_SCHEME, findDeepLinkArgument } from './deepLinks/parseDeepLink.js';
import { deepLinkConfirmed, deepLinkPrompt } from './deepLinks/confirmDeepLink.js';
import { registerAppScheme, serveRenderer } from './electron/appProtocolHandler.js';
import { applyStartAtLogin, startedAtLogin } from './electron/loginItem.js';
import { reloadCrashedRenderer, reportUncaughtOnce, type CrashNotices } from './electron/crashHandling.js';
import { wireIpc } from './electron/ipcWiring.js';
import { guardEveryWebContents } from './electron/webContentsGuard.js';
import { createMainWindow } from './electron/mainWindow.js';
import { createNativeNotificationSink } from './electron/nativeNotifications.js';
import { TrayController } from './electron/trayAndBadge.js';
import { trayIconPaths } from './tray/trayIcons.js';
import { summaryHeadline } from '../shared/environmentsSummary.js';
import { LogFile } from './logging/LogFile.js';
import { electronNetwork } from './network/electronNetwork.js';
import type { AnswerProxyLogin } from './network/loginRequestFetch.js';
import { buildAppMenuTemplate } from './window/appMenuTemplate.js';
import type { NotificationTarget } from '../shared/notifications.js';
import { DesktopPreferencesFile, PREFERENCES_FILE } from './DesktopPreferencesFile.js';
import { aboutText, diagnosticsReport, type SupportFacts } from './support/diagnostics.js';
import { readLogTail, saveSupportBundle, supportBundleFileName, supportBundleText } from './support/supportBundle.js';
import { readJsonFile } from './files/readJsonFile.js';
import { NOTIFICATION_SETTINGS_FILE } from './notifications/NotificationSettingsFile.js';
import { decideClose } from './window/closeBehaviour.js';
import { appOrigins, environmentOrigins } from './window/navigationPolicy.js';
import { devServerUrlFor } from './window/devServerUrl.js';
import { ElectronAppUpdater } from './update/ElectronAppUpdater.js';
import { restartPromptListener } from './update/restartPrompt.js';
import { resolveUpdateFeed } from './update/updateFeed.js';
import { updateCheckAnswer } from './update/updateCheckAnswer.js';

/** Must equal electron-builder's appId: Windows ties notifications and taskbar to it. */
const APP_USER_MODEL_ID = 'dev.svc-monitor.console';
/** package.json desktopName without `.desktop`: the window class Linux docks group by. */
const DESKTOP_WM_CLASS = 'svc-monitor';

const here = fileURLToPath(new URL('.', import.meta.url));
const assets = (name: string) => join(app.getAppPath(), 'build', name);

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  const log = new LogFile(join(app.getPath('userData'), 'logs'));
  log.info(`Svc Monitor ${app.getVersion?.() ?? ''} starting (${process.platform}, ${app.isPackaged ? 'packaged' : 'development'})`);
  const devServerUrl = devServerUrlFor({ packaged: app.isPackaged, env: process.env, warn: (message) => log.warn(message) });
  // Crash dumps stay on this machine (Copy diagnostics names the folder); nothing is uploaded.
  crashReporter.start({ uploadToServer: false });
  const notices: CrashNotices = {
    log: (level, message) => log.write(level, message),
    notice: (title, message) => {
      const options = { type: 'warning' as const, title, message: title, detail: message };
      void (window && !window.isDestroyed() ? dialog.showMessageBox(window, options) : dialog.showMessageBox(options)).catch(() => undefined);
    },
  };
  const uncaught = reportUncaughtOnce(notices);
  process.on('uncaughtException', (err) => uncaught('uncaught exception', err));
  process.on('unhandledRejection', (err) => uncaught('unhandled rejection', err));

  registerAppScheme();
  guardEveryWebContents(app, appOrigins(devServerUrl));
  if (process.platform === 'win32') app.setAppUserModelId(APP_USER_MODEL_ID);
  if (!electronDeclaresScheme(process.platform, process.env)) {
    // An AppImage declares its links itself (registerAppImageProtocol, once started).
  } else if (process.defaultApp && process.argv[1]) app.setAsDefaultProtocolClient(DEEP_LINK_SCHEME, process.execPath, [process.argv[1]]);
  else app.setAsDefaultProtocolClient(DEEP_LINK_SCHEME);

  let window: BrowserWindow | undefined;
  let services: ConsoleServices | undefined;
  let tray: TrayController | undefined;
  let pendingLink = findDeepLinkArgument(process.argv);
  let quitting = false;
  /** Set once quitting is wired (below): what the window's `session-end` runs. */
  let sessionEnding: () => void = () => undefined;
  /** The last unread count: the inbox of the last run is restored before the tray exists. */
  let unread = 0;
  const preferences = new DesktopPreferencesFile(app.getPath('userData'));
  /**
   * A proxy asked the environments' requests or the updater for credentials: the kept ones, else
   * a prompt (the window comes forward with it). Before the services are up nobody can answer
   * (the request gets its 407).
   */
  const answerProxyLogin: AnswerProxyLogin = async (info, attempt) => (services ? services.proxyLogin.credentials(info, attempt) : null);
  // Checks at start and every 12 hours; a downloaded version is installed on quit, or at once
  // from the restart notice.
  const updater = new ElectronAppUpdater({
    currentVersion: app.getVersion(),
    feed: resolveUpdateFeed({ packaged: app.isPackaged, env: process.env, resourcesPath: process.resourcesPath, exists: existsSync }),
    createEngine: () => electronUpdater.autoUpdater,
    log,
    proxyLogin: (info, attempt) => answerProxyLogin(info, attempt),
    // The updated AppImage has a new name and the old file is gone: start at login and the
    // link handler follow it.
    onAppImageRenamed: (path) => {
      void registerAppImageProtocol({ platform: process.platform, env: { ...process.env, APPIMAGE: path }, scheme: DEEP_LINK_SCHEME, wmClass: DESKTOP_WM_CLASS, log });
      if (preferences.get().startAtLogin === true) {
        void applyStartAtLogin(true, { ...loginItemContext(), executable: path }).catch((err: unknown) => log.error('cannot move the start at login to the updated AppImage', err));
      }
    },
  });
  // Restarting to update is a quit: closing the window must not turn into a hide.
  const restartToUpdate = () => {
    quitting = true;
    updater.restartToUpdate();
  };
  // macOS: Squirrel.Mac closes the windows before \`before-quit\`; without this the close would
  // become a hide and the restart to update would do nothing.
  nativeAutoUpdater.on('before-quit-for-update', () => {
    quitting = true;
  });
  // Kept referenced while on screen: a collected Notification loses its click.
  let restartNotice: Notification | undefined;
  updater.onStatus(
    restartPromptListener((notice) => {
      if (!Notification.isSupported()) {
        // No notification daemon (a bare Linux session): ask in the window instead.
        const options = { type: 'info' as const, title: notice.title, message: notice.title, detail: notice.body, buttons: ['Restart now', 'Later'], defaultId: 0, cancelId: 1 };
        void (window && !window.isDestroyed() ? dialog.showMessageBox(window, options) : dialog.showMessageBox(options)).then((r) => r.response === 0 && restartToUpdate(), () => undefined);
        return;
      }
      restartNotice = new Notification({ ...notice, icon: assets('icon.png') });
      restartNotice.on('click', restartToUpdate);
      restartNotice.show();
    }),
  );

  const show = () => {
    if (!window || window.isDestroyed()) return;
    if (window.isMinimized()) window.restore();
    window.show();
    window.focus();
  };
  const open = (target: NotificationTarget) => {
    show();
    services?.open(target);
  };
  const quit = () => {
    quitting = true;
    app.quit();
  };
  const handleLink = (url: string) => {
    show();
    if (!services) {
      pendingLink = url;
      return;
    }
    let link: ReturnType<ConsoleServices['resolveDeepLink']>;
    try {
      link = services.resolveDeepLink(url);
    } catch (err) {
      log.warn(`deep link refused: ${(err as Error).message}`);
      return;
    }
    // Any page can hand the system a link: it opens only once the user chose Open.
    const live = services;
    const prompt = deepLinkPrompt(link.environment, link.target);
    void (window && !window.isDestroyed() ? dialog.showMessageBox(window, prompt) : dialog.showMessageBox(prompt)).then(
      (answer) => {
        if (deepLinkConfirmed(answer.response)) live.open(link.target);
        else log.info(`deep link to ${link.environment.name} cancelled by the user`);
      },
      (err: unknown) => log.warn(`deep link not opened: ${(err as Error).message}`),
    );
  };
  const supportFacts = (): SupportFacts => {
    const update = services?.updater?.status();
    return {
      appVersion: app.getVersion(),
      packaged: app.isPackaged,
      versions: { electron: process.versions['electron'], chrome: process.versions['chrome'], node: process.versions.node },
      os: { platform: process.platform, release: release(), arch: arch() },
      ...(update ? { update } : {}),
    };
  };
  /** What the diagnostics and the support bundle both report: versions, environments, the vault, the last errors, where logs and crash dumps are. */
  const diagnosticsFacts = () => ({
    ...supportFacts(),
    environments: services?.environments() ?? [],
    vault: services?.vault.status() ?? { storage: 'memory' as const, reason: 'still starting', migrated: 0 },
    lastErrors: log.recentErrors(),
    logFolder: log.dir,
    crashDumps: app.getPath('crashDumps'),
  });
  const info = (title: string, message: string, detail: string) => {
    const options = { type: 'info' as const, title, message, detail };
    void (window && !window.isDestroyed() ? dialog.showMessageBox(window, options) : dialog.showMessageBox(options)).catch(() => undefined);
  };
  const helpActions = {
    about: () => info('About Svc Monitor', 'Svc Monitor', aboutText(supportFacts())),
    openLogsFolder: () => void shell.openPath(log.dir),
    copyDiagnostics: () => {
      clipboard.writeText(
        diagnosticsReport({
          ...diagnosticsFacts(),
        }),
      );
      info('Diagnostics copied', 'Diagnostics copied to the clipboard', 'Versions, system, environments and their states, and the last errors — no token, password or address credential. Paste them into your support ticket.');
    },
    // One JSON file, redacted, shown in full before the user chooses where to save it.
    saveSupportBundle: () => {
      const userData = app.getPath('userData');
      void (async () => {
        const settings = {
          notifications: await readJsonFile(join(userData, NOTIFICATION_SETTINGS_FILE)).catch(() => null),
          preferences: await readJsonFile(join(userData, PREFERENCES_FILE)).catch(() => null),
        };
        const text = supportBundleText({
          ...diagnosticsFacts(),
          settings,
          logTail: await readLogTail(log.path),
        });
        const parent = window && !window.isDestroyed() ? window : undefined;
        const saved = await saveSupportBundle(text, supportBundleFileName(new Date()), {
          preview: async (shown) => {
            const options = { type: 'info' as const, title: 'Save support bundle', message: 'This is everything the support bundle holds (tokens, passwords and credentials are redacted). Save it?', detail: shown, buttons: ['Save…', 'Cancel'], defaultId: 0, cancelId: 1 };
            return (await (parent ? dialog.showMessageBox(parent, options) : dialog.showMessageBox(options))).response === 0;
          },
          choosePath: async (fileName) => {
            const options = { defaultPath: join(app.getPath('downloads'), fileName), filters: [{ name: 'Support bundle (JSON)', extensions: ['json'] }] };
            const answer = await (parent ? dialog.showSaveDialog(parent, options) : dialog.showSaveDialog(options));
            return answer.canceled ? undefined : answer.filePath;
          },
          write: (path, content) => writeFile(path, content, { mode: 0o600 }),
        });
        if (saved) log.info(`support bundle saved to ${saved}`);
      })().catch((err: unknown) => {
        log.error('saving the support bundle failed', err);
        info('Save support bundle', 'The support bundle could not be saved', (err as Error).message);
      });
    },
    checkForUpdates: () => {
      const updater = services?.updater;
      const answer = (status: Parameters<typeof updateCheckAnswer>[0]) => {
        const a = updateCheckAnswer(status);
        if (!a.offersRestart) return info('Check for updates', a.heading, a.detail);
        // A downloaded version waits: offer to restart into it now.
        const options = { type: 'info' as const, title: 'Check for updates', message: a.heading, detail: a.detail, buttons: ['Restart now', 'Later'], defaultId: 0, cancelId: 1 };
        void (window && !window.isDestroyed() ? dialog.showMessageBox(window, options) : dialog.showMessageBox(options)).then((r) => r.response === 0 && restartToUpdate(), () => undefined);
      };
      if (!updater) return answer(undefined);
      void updater.checkNow({ manual: true }).then(answer);
    },
  };
  const loginItemContext = () => ({ platform: process.platform, app, executable: process.env['APPIMAGE'] || process.execPath });
  const renderMenu = () => {
    const template = buildAppMenuTemplate(
      { platform: process.platform, packaged: app.isPackaged, environments: services?.environments() ?? [], closeToTray: preferences.get().closeToTray, startAtLogin: preferences.get().startAtLogin === true },
      {
        openEnvironment: (id) => open({ kind: 'environment', environmentId: id }),
        openInbox: () => open({ kind: 'inbox' }),
        setCloseToTray: (value) => {
          void preferences.save({ closeToTray: value }).then(renderMenu, (err) => log.error('cannot save preferences', err));
        },
        setStartAtLogin: (value) => {
          void applyStartAtLogin(value, loginItemContext())
            .then(() => preferences.save({ startAtLogin: value }))
            .then(renderMenu, (err) => {
              log.error('cannot change the start at login', err);
              info('Start at login', 'The start at login could not be changed', err instanceof Error ? err.message : String(err));
            });
        },
        quit,
        ...helpActions,
      },
    );
    Menu.setApplicationMenu(Menu.buildFromTemplate(template));
  };

  /** A start that cannot finish: say why and where the log is, free the lock, quit. */
  const failStart = (err: unknown) => {
    log.error('Svc Monitor could not start', err);
    const message = err instanceof Error ? err.message : String(err);
    try {
      dialog.showErrorBox('Svc Monitor could not start', `${message}\n\nDetails are in the log file:\n${log.path}`);
    } finally {
      quitting = true;
      tray?.destroy();
      void services?.dispose();
      app.releaseSingleInstanceLock();
      app.exit(1);
    }
  };

  app.on('second-instance', (_e, argv) => {
    const link = findDeepLinkArgument(argv);
    if (link) handleLink(link);
    else show();
  });
  app.on('open-url', (event, url) => {
    event.preventDefault();
    handleLink(url);
  });
  // A proxy that asks for credentials (407): kept ones from the keychain, else a prompt naming it.
  // A server's own login request is left to its default (cancelled): environments log in through the API.
  app.on('login', (event, _contents, _details, authInfo, callback) => {
    if (!authInfo.isProxy || !services) return;
    event.preventDefault();
    show();
    services.proxyLogin.credentials(authInfo, { scope: 'windows' }).then(
      (c) => (c ? callback(c.username, c.password) : callback()),
      (err: unknown) => {
        log.error('proxy login failed', err);
        callback();
      },
    );
  });
  // macOS: a click on the dock icon brings the (hidden) window back.
  app.on('activate', () => show());

  const start = async () => {
    await preferences.load();
    // Linux: the autostart entry names this start's executable (an AppImage renamed by an
    // update, or moved by the user, would otherwise no longer start at login).
    if (process.platform === 'linux' && preferences.get().startAtLogin === true) {
      void applyStartAtLogin(true, loginItemContext()).catch((err: unknown) => log.error('cannot refresh the start at login', err));
    }
    if (!devServerUrl) serveRenderer(join(here, '../renderer'));
    // The window first: unlocking the keychain may show a system prompt or wait for a slow
    // Secret Service, and the user sees "unlocking the keychain…" meanwhile. The window's
    // calls wait for the services.
    let servicesReady: (s: ConsoleServices) => void = () => undefined;
    let servicesFailed: (err: unknown) => void = () => undefined;
    const starting = new Promise<ConsoleServices>((resolve, reject) => {
      servicesReady = resolve;
      servicesFailed = reject;
    });
    starting.catch(() => undefined);
    const externalOrigins = () => environmentOrigins(services?.environments() ?? []);
    wireIpc(starting, appOrigins(devServerUrl), (url) => shell.openExternal(url), () => window, externalOrigins);
    renderMenu();
    // A start at login shows only the tray; the window waits for a click.
    const hidden = startedAtLogin(process.argv, app, process.platform);
    window = await createMainWindow({ preloadPath: join(here, '../preload/index.cjs'), iconPath: assets('icon.png'), packaged: app.isPackaged, hidden, externalOrigins, ...(devServerUrl ? { devServerUrl } : {}) });
    reloadCrashedRenderer(window, notices);
    window.on('session-end', () => sessionEnding());
    window.on('close', (event) => {
      const action = decideClose({ quitting, platform: process.platform, closeToTray: preferences.get().closeToTray });
      if (action === 'hide') {
        event.preventDefault();
        window?.hide();
      } else if (action === 'quit') {
        quitting = true;
        app.quit();
      }
    });
    const notifications = createNativeNotificationSink(open, assets('icon.png'), (target) => services?.linkFor(target));
    try {
      services = await ConsoleServices.create({
        userDataDir: app.getPath('userData'),
        loadKeytar: async () => ((await import('keytar')) as unknown as { default: KeytarLike }).default,
        safeStorage,
        // Chromium's stack: the system's trust store and proxy, plus each environment's own rules.
        // net.request raises `login` for a proxy that asks (net.fetch does not): the keychain, then a prompt.
        network: electronNetwork<Session>({ net, session }, answerProxyLogin),
        notifications,
        badge: {
          setUnreadCount: (n) => {
            unread = n;
            tray?.setUnreadCount(n);
          },
        },
        hub: { log: (environmentId, level, message) => log.write(level, `hub ${environmentId}: ${message}`) },
        log: (level, message) => log.write(level, message),
        updater,
      });
    } catch (err) {
      servicesFailed(err);
      throw err;
    }
    servicesReady(services);
    const recovery = services.store.recovery;
    if (recovery) log.warn(`environment list unreadable, moved to ${recovery.movedTo}: ${recovery.reason}`);
    tray = new TrayController(
      trayIconPaths(process.platform, assets),
      {
        show,
        openEnvironment: (id) => open({ kind: 'environment', environmentId: id }),
        openInbox: () => open({ kind: 'inbox' }),
        quit,
      },
      () => window,
    );
    // The tray's header line: the all-environments summary, gathered every 5 minutes (and whenever the page refreshes).
    services.summary.onSummary((summary) => tray?.setHeadline(summaryHeadline(summary)));
    services.summary.refreshEvery(5 * 60_000);
    services.onEvent((e) => {
      if (e.type === 'proxyLogin') show();
      if (e.type === 'environments' || e.type === 'status') tray?.setEnvironments(services!.environments());
      if (e.type === 'environments') renderMenu();
    });
    renderMenu();
    // A reload (after a crash or a hang) starts a new page: it opens what it is told from then on.
    window.webContents.on('did-start-loading', () => services?.rendererLoading());
    // The tray and the taskbar overlay exist now: show the unread failures kept from the last run.
    tray.setUnreadCount(unread);
    if (recovery) {
      void dialog.showMessageBox(window, {
        type: 'warning',
        title: 'Environment list reset',
        message: 'Your environment list could not be read, so the console starts with an empty list.',
        detail: `${recovery.reason}\n\nThe old file was kept as:\n${recovery.movedTo}`,
      });
    }
    await services.start();
    // After sleep the hubs reconnect on their own; the back-fill finds what failed meanwhile.
    powerMonitor.on('resume', () => void services?.backfillAll());
    if (pendingLink) handleLink(pendingLink);
    pendingLink = undefined;
    log.info(`started with ${services.environments().length} environment(s)`);
    updater.start();
    // An AppImage declares svc-monitor: links itself (installers do it at install time).
    void registerAppImageProtocol({ platform: process.platform, env: process.env, scheme: DEEP_LINK_SCHEME, wmClass: DESKTOP_WM_CLASS, log });
  };
  app.whenReady().then(start).catch(failStart);

  // Quit holds back once until the services are stopped: the inbox's delayed write and the
  // hubs' close frames finish before the process ends.
  let stopping: Promise<void> | undefined;
  let stopped = false;
  /** The bounded stop (ConsoleServices.dispose waits at most 5 s): Quit, logoff and shutdown all use it. */
  const stopServices = (live: ConsoleServices): Promise<void> =>
    (stopping ??= live
      .dispose()
      .catch((err: unknown) => log.error('stopping the services failed', err))
      .finally(() => {
        stopped = true;
        tray?.destroy();
      }));
  app.on('before-quit', (event) => {
    quitting = true;
    updater.dispose();
    services?.summary.stop();
    if (stopped || !services) {
      tray?.destroy();
      return;
    }
    event.preventDefault();
    void stopServices(services).then(() => app.quit());
  });
  // Windows logoff or shutdown ends the session without before-quit: the same bounded stop
  // starts at once (it writes the inbox in every case). Linux and macOS shutdown may be held
  // back while the app quits the normal way.
  sessionEnding = () => {
    quitting = true;
    log.info('the session is ending (logoff or shutdown): stopping');
    if (services && !stopped) void stopServices(services);
  };
  // Electron passes an event it may hold the shutdown with (its typings omit it).
  powerMonitor.on('shutdown', (event?: { preventDefault?: () => void }) => {
    event?.preventDefault?.();
    quit();
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
}
