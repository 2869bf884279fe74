import { app, Menu, nativeImage, Tray, type BrowserWindow, type MenuItemConstructorOptions } from 'electron';
import type { EnvironmentStatusView } from '../../shared/environmentStatus.js';
import type { BadgeSink } from '../notifications/FailureNotifier.js';
import { buildTrayMenuTemplate, trayState, trayTooltip, type TrayMenuItem } from '../tray/trayMenuTemplate.js';

export interface TrayActions {
  show(): void;
  openEnvironment(environmentId: string): void;
  openInbox(): void;
  quit(): void;
}

/**
 * The tray icon, its menu (show, environments with status, inbox, quit) and the badge. The
 * icon warns (and the tooltip names the environments) while some environment is not watched.
 */
export class TrayController implements BadgeSink {
  private readonly tray: Tray;
  private unread = 0;
  private environments: readonly EnvironmentStatusView[] = [];

  constructor(private readonly icons: { normal: string; unread: string; warning: string }, private readonly actions: TrayActions, private readonly window: () => BrowserWindow | undefined) {
    this.tray = new Tray(nativeImage.createFromPath(icons.normal));
    this.tray.on('click', () => actions.show());
    this.render();
  }

  setEnvironments(environments: readonly EnvironmentStatusView[]): void {
    this.environments = environments;
    this.renderIcon();
    this.render();
  }

  setUnreadCount(count: number): void {
    this.unread = count;
    app.setBadgeCount(count);
    this.renderIcon();
    const win = this.window();
    if (process.platform === 'win32' && win) {
      win.setOverlayIcon(count > 0 ? nativeImage.createFromPath(this.icons.unread) : null, count > 0 ? trayTooltip(count) : '');
    }
    this.render();
  }

  destroy(): void {
    this.tray.destroy();
  }

  private renderIcon(): void {
    const state = trayState(this.unread, this.environments);
    this.tray.setImage(nativeImage.createFromPath(this.icons[state]));
    if (process.platform === 'darwin') this.tray.setTitle(`${state === 'warning' ? '⚠' : ''}${this.unread > 0 ? String(this.unread) : ''}`);
  }

  private render(): void {
    this.tray.setToolTip(trayTooltip(this.unread, this.environments));
    this.tray.setContextMenu(Menu.buildFromTemplate(buildTrayMenuTemplate(this.environments, this.unread).map((i) => this.toElectron(i))));
  }

  private toElectron(item: TrayMenuItem): MenuItemConstructorOptions {
    switch (item.kind) {
      case 'separator':
        return { type: 'separator' };
      case 'label':
        return { label: item.label, enabled: false };
      case 'environment':
        return { label: item.label, click: () => this.actions.openEnvironment(item.environmentId) };
      case 'action':
        return {
          label: item.label,
          click: () => (item.id === 'show' ? this.actions.show() : item.id === 'inbox' ? this.actions.openInbox() : this.actions.quit()),
        };
    }
  }
}
