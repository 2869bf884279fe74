import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { BRIDGE_GLOBAL, IPC_CHANNEL_NAMES, IPC_PREFIX, RENDERER_EVENT_CHANNEL, type DesktopBridge, type IpcChannelName } from '../shared/ipcContract.js';
import type { RendererEvent } from '../shared/rendererEvents.js';

const known = new Set<string>(IPC_CHANNEL_NAMES);

const bridge: DesktopBridge = {
  invoke(channel: IpcChannelName, ...args: unknown[]) {
    if (!known.has(channel)) return Promise.resolve({ ok: false, error: { code: 'not-found', message: `Unknown IPC channel "${String(channel)}"` } });
    return ipcRenderer.invoke(IPC_PREFIX + channel, ...args);
  },
  onEvent(listener: (event: RendererEvent) => void) {
    const handler = (_e: IpcRendererEvent, event: RendererEvent) => listener(event);
    ipcRenderer.on(RENDERER_EVENT_CHANNEL, handler);
    return () => {
      ipcRenderer.removeListener(RENDERER_EVENT_CHANNEL, handler);
    };
  },
  platform: process.platform,
} as DesktopBridge;

contextBridge.exposeInMainWorld(BRIDGE_GLOBAL, bridge);
