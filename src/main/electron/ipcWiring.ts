import { dialog, ipcMain, type BrowserWindow, type IpcMainInvokeEvent } from 'electron';
import type { ConsoleServices } from '../ConsoleServices.js';
import { createIpcDispatcher } from '../ipc/ipcDispatcher.js';
import { IPC_PREFIX, RENDERER_EVENT_CHANNEL } from '../../shared/ipcContract.js';
import { IPC_TABLE_CHANNELS, type FileDialogs } from '../ipc/ipcChannelTable.js';
import { decideWindowOpen, originOf } from '../window/navigationPolicy.js';

/**
 * One `ipcMain.handle` per channel; a call from any frame other than the app's own top
 * frame is refused; arguments are validated by the dispatcher. RendererEvents are pushed
 * on one channel. The services may still be starting (the keychain being unlocked while the
 * window already shows): calls wait for them.
 */
export function wireIpc(
  services: ConsoleServices | Promise<ConsoleServices>,
  allowedOrigins: readonly string[],
  openExternal: (url: string) => Promise<void>,
  window: () => BrowserWindow | undefined,
  externalOrigins: () => readonly string[] = () => [],
): () => void {
  const dispatcher = Promise.resolve(services).then((s) =>
    createIpcDispatcher({
      services: s,
      openExternal: async (url) => {
        const d = decideWindowOpen(url, externalOrigins());
        if (d.action === 'open-external') await openExternal(d.url);
      },
      files: fileDialogs(window),
    }),
  );
  const dispatch = (name: string, args: unknown[]) =>
    dispatcher.then(
      (d) => d(name, args),
      (err: unknown) => ({ ok: false as const, error: { code: 'network' as const, message: `Svc Monitor could not start: ${err instanceof Error ? err.message : String(err)}` } }),
    );
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
  let unsubscribe: () => void = () => undefined;
  let unwired = false;
  void Promise.resolve(services).then(
    (s) => {
      if (unwired) return;
      unsubscribe = s.onEvent((e) => {
        const w = window();
        if (w && !w.isDestroyed()) w.webContents.send(RENDERER_EVENT_CHANNEL, e);
      });
    },
    () => undefined,
  );
  return () => {
    unwired = true;
    unsubscribe();
    for (const name of IPC_TABLE_CHANNELS) ipcMain.removeHandler(IPC_PREFIX + name);
  };
}

/** Electron's open and save dialogs, attached to the window. */
function fileDialogs(window: () => BrowserWindow | undefined): FileDialogs {
  const FILTERS = {
    'ca-certificate': [{ name: 'CA certificates (PEM)', extensions: ['pem', 'crt', 'cer'] }],
    environments: [{ name: 'Environment lists', extensions: ['json'] }],
  } as const;
  return {
    open: async (purpose) => {
      const options = { properties: ['openFile' as const], filters: FILTERS[purpose].map((f) => ({ ...f, extensions: [...f.extensions] })) };
      const w = window();
      const r = await (w ? dialog.showOpenDialog(w, options) : dialog.showOpenDialog(options));
      return r.canceled ? null : (r.filePaths[0] ?? null);
    },
    save: async (defaultName) => {
      const options = { defaultPath: defaultName, filters: FILTERS.environments.map((f) => ({ ...f, extensions: [...f.extensions] })) };
      const w = window();
      const r = await (w ? dialog.showSaveDialog(w, options) : dialog.showSaveDialog(options));
      return r.canceled || !r.filePath ? null : r.filePath;
    },
  };
}
