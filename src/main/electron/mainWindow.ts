import { app, BrowserWindow, screen, shell, session } from 'electron';
import { appOrigins, decideNavigation, decideWindowOpen } from '../window/navigationPolicy.js';
import { buildContentSecurityPolicy } from '../window/contentSecurityPolicy.js';
import { decidePermission } from '../window/permissionPolicy.js';
import { buildWindowOptions } from '../window/windowOptions.js';
import { fitToDisplays, loadWindowState, saveWindowState, type WindowState } from '../window/windowState.js';
import { APP_ORIGIN } from '../window/appProtocol.js';

export interface MainWindowInput {
  preloadPath: string;
  iconPath?: string;
  devServerUrl?: string;
  packaged?: boolean;
  /** Started at login: the window is made but stays hidden (the tray shows it). */
  hidden?: boolean;
  /** The origins a link may open in the system browser (the environments' hosts), read at each click. */
  externalOrigins?: () => readonly string[];
}

/** The one window: hardened options, navigation denied, CSP, remembered bounds. */
export async function createMainWindow(input: MainWindowInput): Promise<BrowserWindow> {
  const userData = app.getPath('userData');
  const state = fitToDisplays(await loadWindowState(userData), screen.getAllDisplays().map((d) => d.workArea));
  const win = new BrowserWindow(buildWindowOptions({ preloadPath: input.preloadPath, state, packaged: input.packaged === true, ...(input.iconPath ? { iconPath: input.iconPath } : {}) }));
  if (state.maximized) win.maximize();

  const origins = appOrigins(input.devServerUrl);
  const contents = win.webContents;
  contents.on('will-navigate', (event, url) => {
    if (decideNavigation(url, origins).action !== 'allow') event.preventDefault();
  });
  contents.on('will-redirect', (event, url) => {
    if (decideNavigation(url, origins).action !== 'allow') event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    const d = decideWindowOpen(url, input.externalOrigins?.() ?? []);
    if (d.action === 'open-external') void shell.openExternal(d.url);
    return { action: 'deny' };
  });
  session.defaultSession.setPermissionRequestHandler((_wc, permission, callback, details) => callback(decidePermission(permission, details.requestingUrl, origins)));
  session.defaultSession.setPermissionCheckHandler((_wc, permission, requestingOrigin) => decidePermission(permission, requestingOrigin, origins));
  if (input.devServerUrl) {
    const csp = buildContentSecurityPolicy({ devServerUrl: input.devServerUrl });
    session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
      callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [csp] } });
    });
  }

  let saveTimer: NodeJS.Timeout | undefined;
  const remember = () => {
    if (saveTimer) clearTimeout(saveTimer);
    saveTimer = setTimeout(() => {
      if (win.isDestroyed()) return;
      const b = win.getNormalBounds();
      const next: WindowState = { x: b.x, y: b.y, width: b.width, height: b.height, maximized: win.isMaximized() };
      void saveWindowState(userData, next);
    }, 500);
  };
  for (const e of ['resize', 'move', 'maximize', 'unmaximize'] as const) win.on(e as 'resize', remember);

  if (!input.hidden) win.once('ready-to-show', () => win.show());
  await win.loadURL(input.devServerUrl ?? `${APP_ORIGIN}/`);
  return win;
}
