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
  /** The all-environments summary's line (failing / down counts). */
  private headline: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** What the tray shows now: an unchanged state keeps its image, title and overlay. */
  private shown: { state?: string; unread?: number; tooltip?: string; menu?: string } = { state: 'normal' };

  constructor(
    private readonly icons: { normal: string; unread: string; warning: string },
    private readonly actions: TrayActions,
    private readonly window: () => BrowserWindow | undefined,
    /** Changes within this long make one update of the icon, badge and menu (a storm of failures). */
    private readonly coalesceMs = 250,
  ) {
    this.tray = new Tray(nativeImage.createFromPath(icons.normal));
    this.tray.on('click', () => actions.show());
    this.render();
  }

  setEnvironments(environments: readonly EnvironmentStatusView[]): void {
    this.environments = environments;
    this.schedule();
  }

  setHeadline(headline: string | undefined): void {
    this.headline = headline;
    this.schedule();
  }

  setUnreadCount(count: number): void {
    this.unread = count;
    this.schedule();
  }

  destroy(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.tray.destroy();
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.render();
    }, this.coalesceMs);
  }

  private render(): void {
    const state = trayState(this.unread, this.environments);
    if (state !== this.shown.state) this.tray.setImage(nativeImage.createFromPath(this.icons[state]));
    if (process.platform === 'darwin' && (state !== this.shown.state || this.unread !== this.shown.unread)) {
      this.tray.setTitle(`${state === 'warning' ? '⚠' : ''}${this.unread > 0 ? String(this.unread) : ''}`);
    }
    if (this.unread !== this.shown.unread) {
      app.setBadgeCount(this.unread);
      const win = this.window();
      if (process.platform === 'win32' && win) {
        win.setOverlayIcon(this.unread > 0 ? nativeImage.createFromPath(this.icons.unread) : null, this.unread > 0 ? trayTooltip(this.unread) : '');
      }
    }
    const tooltip = trayTooltip(this.unread, this.environments);
    if (tooltip !== this.shown.tooltip) this.tray.setToolTip(tooltip);
    const template = buildTrayMenuTemplate(this.environments, this.unread, this.headline);
    const menu = JSON.stringify(template);
    if (menu !== this.shown.menu) this.tray.setContextMenu(Menu.buildFromTemplate(template.map((i) => this.toElectron(i))));
    this.shown = { state, unread: this.unread, tooltip, menu };
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
