import type { MenuItemConstructorOptions } from 'electron';

export interface AppMenuInput {
  platform: string;
  /** Packaged builds have no reload and no developer tools. */
  packaged: boolean;
  environments: ReadonlyArray<{ id: string; name: string; isProduction: boolean }>;
  closeToTray: boolean;
  startAtLogin: boolean;
}

export interface AppMenuActions {
  openEnvironment(environmentId: string): void;
  openInbox(): void;
  setCloseToTray(value: boolean): void;
  setStartAtLogin(value: boolean): void;
  quit(): void;
  about(): void;
  checkForUpdates(): void;
  openLogsFolder(): void;
  copyDiagnostics(): void;
  saveSupportBundle(): void;
}

/**
 * The application menu: standard edit roles (copy/paste shortcuts on macOS need them), the
 * first nine environments on Ctrl/⌘+1…9, the inbox on Ctrl/⌘+I, the close-to-tray choice,
 * reload/developer tools only in development, and Help: About, Check for updates, Open logs
 * folder, Copy diagnostics, Save support bundle.
 */
export function buildAppMenuTemplate(input: AppMenuInput, actions: AppMenuActions): MenuItemConstructorOptions[] {
  const mac = input.platform === 'darwin';
  const environments: MenuItemConstructorOptions[] = input.environments.length
    ? input.environments.map((e, i) => ({
        label: `${e.name}${e.isProduction ? ' (production)' : ''}`,
        ...(i < 9 ? { accelerator: `CmdOrCtrl+${i + 1}` } : {}),
        click: () => actions.openEnvironment(e.id),
      }))
    : [{ label: 'No environments yet', enabled: false }];
  const closeToTray: MenuItemConstructorOptions = {
    label: mac ? 'Keep Running in the Menu Bar When the Window Closes' : 'Keep running in the tray when the window closes',
    type: 'checkbox',
    checked: input.closeToTray,
    click: (item) => actions.setCloseToTray(item.checked),
  };
  const startAtLogin: MenuItemConstructorOptions = {
    label: mac ? 'Open at Login (in the Menu Bar)' : 'Start at login (in the tray)',
    type: 'checkbox',
    checked: input.startAtLogin,
    click: (item) => actions.setStartAtLogin(item.checked),
  };
  const quit: MenuItemConstructorOptions = { label: mac ? 'Quit Svc Monitor' : 'Quit', accelerator: 'CmdOrCtrl+Q', click: () => actions.quit() };
  const about: MenuItemConstructorOptions = { label: 'About Svc Monitor', click: () => actions.about() };
  const checkForUpdates: MenuItemConstructorOptions = { label: mac ? 'Check for Updates…' : 'Check for updates…', click: () => actions.checkForUpdates() };
  const help: MenuItemConstructorOptions = {
    label: mac ? 'Help' : '&Help',
    role: 'help',
    submenu: [
      ...(mac ? [] : [about]),
      checkForUpdates,
      { type: 'separator' },
      { label: mac ? 'Open Logs Folder' : 'Open logs folder', click: () => actions.openLogsFolder() },
      { label: mac ? 'Copy Diagnostics' : 'Copy diagnostics', click: () => actions.copyDiagnostics() },
      { label: mac ? 'Save Support Bundle…' : 'Save support bundle…', click: () => actions.saveSupportBundle() },
    ],
  };
  const view: MenuItemConstructorOptions[] = [
    ...(input.packaged ? [] : ([{ role: 'reload' }, { role: 'toggleDevTools' }, { type: 'separator' }] as MenuItemConstructorOptions[])),
    { role: 'resetZoom' },
    { role: 'zoomIn' },
    { role: 'zoomOut' },
    { type: 'separator' },
    { role: 'togglefullscreen' },
  ];
  return [
    ...(mac ? [{ label: 'Svc Monitor', submenu: [about, checkForUpdates, { type: 'separator' }, closeToTray, startAtLogin, { type: 'separator' }, { role: 'hide' }, { role: 'hideOthers' }, { role: 'unhide' }, { type: 'separator' }, quit] } as MenuItemConstructorOptions] : []),
    ...(mac ? [] : [{ label: '&File', submenu: [closeToTray, startAtLogin, { type: 'separator' }, quit] } as MenuItemConstructorOptions]),
    { label: mac ? 'Edit' : '&Edit', submenu: [{ role: 'undo' }, { role: 'redo' }, { type: 'separator' }, { role: 'cut' }, { role: 'copy' }, { role: 'paste' }, { role: 'selectAll' }] },
    { label: mac ? 'View' : '&View', submenu: view },
    { label: mac ? 'Go' : '&Go', submenu: [...environments, { type: 'separator' }, { label: 'Failure Inbox', accelerator: 'CmdOrCtrl+I', click: () => actions.openInbox() }] },
    { label: mac ? 'Window' : '&Window', submenu: [{ role: 'minimize' }, ...(mac ? [{ role: 'zoom' }, { role: 'front' }] : [{ role: 'close' }])] as MenuItemConstructorOptions[] },
    help,
  ];
}
