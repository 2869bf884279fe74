import type { BrowserWindowConstructorOptions } from 'electron';
import type { WindowState } from './windowState.js';

export interface WindowOptionsInput {
  preloadPath: string;
  state: WindowState;
  iconPath?: string;
  /** Chrome tint before the renderer picks the active environment's colour. */
  backgroundColor?: string;
  /** An installed build: no developer tools. */
  packaged?: boolean;
}

/** BrowserWindow options: isolated, sandboxed, no Node in the renderer. */
export function buildWindowOptions(input: WindowOptionsInput): BrowserWindowConstructorOptions {
  return {
    x: input.state.x,
    y: input.state.y,
    width: input.state.width,
    height: input.state.height,
    minWidth: 960,
    minHeight: 600,
    show: false,
    title: 'Svc Monitor',
    backgroundColor: input.backgroundColor ?? '#1e1f24',
    autoHideMenuBar: true,
    ...(input.iconPath ? { icon: input.iconPath } : {}),
    webPreferences: {
      preload: input.preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      spellcheck: false,
      safeDialogs: true,
      experimentalFeatures: false,
      devTools: input.packaged !== true,
    },
  };
}
