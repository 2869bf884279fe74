/**
 * Electron wiring of the desktop console. Thin on purpose: every decision lives in plain
 * Node services (ConsoleServices and friends) that are tested without Electron.
 */
import { app, BrowserWindow, safeStorage, shell } from 'electron';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConsoleServices } from './ConsoleServices.js';
import type { KeytarLike } from './credentials/secretBackend.js';
import { DEEP_LINK_SCHEME, findDeepLinkArgument } from './deepLinks/parseDeepLink.js';
import { registerAppScheme, serveRenderer } from './electron/appProtocolHandler.js';
import { wireIpc } from './electron/ipcWiring.js';
import { createMainWindow } from './electron/mainWindow.js';
import { createNativeNotificationSink } from './electron/nativeNotifications.js';
import { TrayController } from './electron/trayAndBadge.js';
import type { NotificationTarget } from './notifications/FailureNotifier.js';
import { appOrigins } from './window/navigationPolicy.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const devServerUrl = process.env['ELECTRON_RENDERER_URL'];
const assets = (name: string) => join(app.getAppPath(), 'build', name);

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  registerAppScheme();
  if (process.defaultApp && process.argv[1]) app.setAsDefaultProtocolClient(DEEP_LINK_SCHEME, process.execPath, [process.argv[1]]);
  else app.setAsDefaultProtocolClient(DEEP_LINK_SCHEME);

  let window: BrowserWindow | undefined;
  let services: ConsoleServices | undefined;
  let tray: TrayController | undefined;
  let pendingLink = findDeepLinkArgument(process.argv);
  let quitting = false;

  const show = () => {
    if (!window) return;
    if (window.isMinimized()) window.restore();
    window.show();
    window.focus();
  };
  const open = (target: NotificationTarget) => {
    show();
    services?.open(target);
  };
  const handleLink = (url: string) => {
    show();
    if (!services) {
      pendingLink = url;
      return;
    }
    try {
      services.openDeepLink(url);
    } catch (err) {
      console.warn(`[svc-monitor] ${(err as Error).message}`);
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

  app.whenReady().then(async () => {
    if (!devServerUrl) serveRenderer(join(here, '../renderer'));
    services = await ConsoleServices.create({
      userDataDir: app.getPath('userData'),
      loadKeytar: async () => ((await import('keytar')) as unknown as { default: KeytarLike }).default,
      safeStorage,
      notifications: createNativeNotificationSink(open, assets('icon.png')),
      badge: { setUnreadCount: (n) => tray?.setUnreadCount(n) },
    });
    tray = new TrayController(
      { normal: assets('tray/tray.png'), unread: assets('tray/tray-unread.png') },
      {
        show,
        openEnvironment: (id) => open({ kind: 'environment', environmentId: id }),
        openInbox: () => open({ kind: 'inbox' }),
        quit: () => {
          quitting = true;
          app.quit();
        },
      },
      () => window,
    );
    services.onEvent((e) => {
      if (e.type === 'environments' || e.type === 'status') tray?.setEnvironments(services!.environments());
    });
    wireIpc(services, appOrigins(devServerUrl), (url) => shell.openExternal(url), () => window);
    window = await createMainWindow({ preloadPath: join(here, '../preload/index.cjs'), iconPath: assets('icon.png'), ...(devServerUrl ? { devServerUrl } : {}) });
    // Closing the window keeps the app in the tray (failures still notify); Quit ends it.
    window.on('close', (event) => {
      if (!quitting) {
        event.preventDefault();
        window?.hide();
      }
    });
    await services.start();
    if (pendingLink) handleLink(pendingLink);
    pendingLink = undefined;
  });

  app.on('before-quit', () => {
    quitting = true;
    void services?.dispose();
    tray?.destroy();
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
}
