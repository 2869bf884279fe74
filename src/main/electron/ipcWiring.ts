import { ipcMain, type BrowserWindow, type IpcMainInvokeEvent } from 'electron';
import type { ConsoleServices } from '../ConsoleServices.js';
import { createIpcDispatcher } from '../ipc/ipcDispatcher.js';
import { IPC_PREFIX, RENDERER_EVENT_CHANNEL } from '../../shared/ipcContract.js';
import { IPC_TABLE_CHANNELS } from '../ipc/ipcChannelTable.js';
import { decideWindowOpen, originOf } from '../window/navigationPolicy.js';

/**
 * One `ipcMain.handle` per channel; a call from any frame other than the app's own top
 * frame is refused; arguments are validated by the dispatcher. RendererEvents are pushed
 * on one channel.
 */
export function wireIpc(services: ConsoleServices, allowedOrigins: readonly string[], openExternal: (url: string) => Promise<void>, window: () => BrowserWindow | undefined): () => void {
  const dispatch = createIpcDispatcher({
    services,
    openExternal: async (url) => {
      const d = decideWindowOpen(url);
      if (d.action === 'open-external') await openExternal(d.url);
    },
  });
  const fromApp = (event: IpcMainInvokeEvent): boolean => {
    const frame = event.senderFrame;
    if (!frame || frame.parent !== null) return false;
    const origin = originOf(frame.url);
    return origin !== undefined && allowedOrigins.includes(origin);
  };
  for (const name of IPC_TABLE_CHANNELS) {
    ipcMain.handle(IPC_PREFIX + name, (event, ...args: unknown[]) => {
      if (!fromApp(event)) return { ok: false, error: { code: 'forbidden', message: 'IPC refused: not the app frame' } };
      return dispatch(name, args);
    });
  }
  const unsubscribe = services.onEvent((e) => {
    const w = window();
    if (w && !w.isDestroyed()) w.webContents.send(RENDERER_EVENT_CHANNEL, e);
  });
  return () => {
    unsubscribe();
    for (const name of IPC_TABLE_CHANNELS) ipcMain.removeHandler(IPC_PREFIX + name);
  };
}
