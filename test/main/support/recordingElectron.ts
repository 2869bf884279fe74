import { EventEmitter } from 'node:events';
import { register } from 'node:module';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

type PermissionRequestHandler = (wc: unknown, permission: string, cb: (ok: boolean) => void, details: { requestingUrl: string }) => void;
type PermissionCheckHandler = (wc: unknown, permission: string, requestingOrigin: string, details: { requestingUrl: string }) => boolean;

type VerifyProc = (request: { hostname: string; certificate: { data: string }; errorCode: number }, callback: (verdict: number) => void) => void;

/** A session from session.fromPartition: its certificate check is recorded. */
export interface RecordingSession {
  verifyProc: VerifyProc | undefined;
  fetch(input: string | Request, init?: RequestInit): Promise<Response>;
  resolveProxy(url: string): Promise<string>;
  setCertificateVerifyProc(proc: VerifyProc | null): void;
}

/** A native notification the app showed. */
export interface RecordedNotification {
  title: string;
  body: string;
  urgency?: string;
  /** The Windows toast's XML, when the app gave one. */
  toastXml?: string;
  /** performance.now() when shown. */
  at: number;
  /** Does what a click on the notification does. */
  click(): void;
  /** Does what dismissing the notification does. */
  close(): void;
}

/**
 * A recording stand-in for the `electron` module: Electron itself cannot run here, so the
 * wiring test loads src/main/index.ts (and the packaged-app test the packaged
 * out/main/index.js) against this object and then drives what Electron would call (IPC
 * handlers, protocol handler, navigation events, window.open handler). Imports only Node
 * builtins: the packaged-app test runs it in a plain Node process.
 */
export function createRecordingElectron(userDataDir: string, appPath: string, options: { packaged?: boolean } = {}) {
  const calls: string[] = [];
  const dialogs: Array<{ kind: 'error' | 'message'; title: string; text: string }> = [];
  const menus: unknown[] = [];
  const notifications: RecordedNotification[] = [];
  const permissions: { request?: PermissionRequestHandler; check?: PermissionCheckHandler } = {};
  /** What the session's permission handlers answer for `permission` asked by a page at `url`. */
  const askPermission = (permission: string, url: string): { request: boolean | undefined; check: boolean | undefined } => {
    let request: boolean | undefined;
    permissions.request?.(undefined, permission, (ok) => (request = ok), { requestingUrl: url });
    const u = new URL(url); // Electron passes the origin; Node's URL says "null" for app://
    return { request, check: permissions.check?.(undefined, permission, `${u.protocol}//${u.host}`, { requestingUrl: url }) };
  };
  const ipcHandlers = new Map<string, (event: unknown, ...args: unknown[]) => unknown>();
  const protocolHandlers = new Map<string, (request: Request) => Promise<Response> | Response>();
  const windows: FakeWindow[] = [];
  const opened: string[] = [];
  /** Everything written to the clipboard, and the folders opened in the file manager. */
  const clipboardTexts: string[] = [];
  const openedPaths: string[] = [];
  let readyResolve: () => void = () => undefined;
  const ready = new Promise<void>((r) => (readyResolve = r));
  const appEmitter = new EventEmitter();

  class FakeWebContents extends EventEmitter {
    windowOpenHandler?: (details: { url: string }) => { action: string };
    sent: Array<[string, unknown]> = [];
    setWindowOpenHandler(h: (details: { url: string }) => { action: string }) {
      this.windowOpenHandler = h;
    }
    /** performance.now() of each send, same order as `sent`. */
    sentAt: number[] = [];
    reloads = 0;
    reload() {
      this.reloads++;
    }
    send(channel: string, payload: unknown) {
      this.sent.push([channel, payload]);
      this.sentAt.push(performance.now());
    }
  }
  class FakeWindow extends EventEmitter {
    webContents = new FakeWebContents();
    loadedUrl?: string;
    constructor(readonly options: Record<string, unknown>) {
      super();
      windows.push(this);
    }
    /** performance.now() of the first show(). */
    shownAt?: number;
    visible = false;
    async loadURL(url: string) {
      this.loadedUrl = url;
      // Electron emits ready-to-show once the first paint is ready.
      setImmediate(() => this.emit('ready-to-show'));
    }
    isDestroyed = () => false;
    isMinimized = () => false;
    isMaximized = () => false;
    isVisible = () => this.visible;
    maximize() {}
    restore() {}
    show() {
      this.shownAt ??= performance.now();
      this.visible = true;
    }
    hide() {
      this.visible = false;
    }
    focus() {}
    getNormalBounds = () => ({ x: 0, y: 0, width: 1280, height: 800 });
    setOverlayIcon() {}
  }
  class FakeTray extends EventEmitter {
    tooltip = '';
    menu: unknown;
    constructor(readonly icon: unknown) {
      super();
    }
    setToolTip(t: string) {
      this.tooltip = t;
    }
    setContextMenu(m: unknown) {
      this.menu = m;
    }
    /** Every icon set after construction, in order. */
    images: unknown[] = [];
    setImage(image: unknown) {
      this.images.push(image);
    }
    setTitle() {}
    destroy() {}
  }
  const trays: FakeTray[] = [];
  /** Sessions made with session.fromPartition, by partition name. */
  const partitions = new Map<string, RecordingSession>();
  /** What the system proxy answers for a URL ("DIRECT" unless a test says otherwise). */
  const network = { proxyFor: (_url: string): string => 'DIRECT' };

  const electron = {
    app: Object.assign(appEmitter, {
      requestSingleInstanceLock: () => true,
      releaseSingleInstanceLock: () => calls.push('app.releaseSingleInstanceLock'),
      quit: () => calls.push('app.quit'),
      exit: (code: number) => calls.push(`app.exit:${code}`),
      isPackaged: options.packaged === true,
      getVersion: () => '0.1.0',
      setAppUserModelId: (id: string) => calls.push(`setAppUserModelId:${id}`),
      setAsDefaultProtocolClient: (scheme: string) => (calls.push(`setAsDefaultProtocolClient:${scheme}`), true),
      whenReady: () => ready,
      getPath: (name: string) => (name === 'userData' ? userDataDir : name === 'crashDumps' ? `${userDataDir}/Crashpad` : appPath),
      getAppPath: () => appPath,
      setBadgeCount: (n: number) => (calls.push(`badge:${n}`), true),
      setLoginItemSettings: (settings: Record<string, unknown>) => void calls.push(`setLoginItemSettings:${JSON.stringify(settings)}`),
      getLoginItemSettings: () => ({ wasOpenedAsHidden: false }),
    }),
    BrowserWindow: FakeWindow,
    Tray: class extends FakeTray {
      constructor(icon: unknown) {
        super(icon);
        trays.push(this);
      }
    },
    Menu: {
      buildFromTemplate: (t: unknown) => t,
      setApplicationMenu: (m: unknown) => menus.push(m),
    },
    dialog: {
      showErrorBox: (title: string, text: string) => dialogs.push({ kind: 'error', title, text }),
      showMessageBox: async (_w: unknown, o: { title?: string; message: string; detail?: string }) => {
        dialogs.push({ kind: 'message', title: o.title ?? '', text: `${o.message}\n${o.detail ?? ''}` });
        return { response: 0 };
      },
    },
    nativeImage: { createFromPath: (p: string) => ({ path: p }) },
    Notification: class extends EventEmitter {
      static isSupported = () => true;
      constructor(private readonly options: { title: string; body: string; urgency?: string; toastXml?: string }) {
        super();
      }
      show() {
        const { title, body, urgency, toastXml } = this.options;
        notifications.push({ title, body, ...(urgency ? { urgency } : {}), ...(toastXml ? { toastXml } : {}), at: performance.now(), click: () => this.emit('click'), close: () => this.emit('close') });
      }
    },
    ipcMain: {
      handle: (channel: string, h: (event: unknown, ...args: unknown[]) => unknown) => ipcHandlers.set(channel, h),
      removeHandler: (channel: string) => ipcHandlers.delete(channel),
    },
    // Electron's net.fetch reads file: URLs; Node's fetch does not. Other URLs go to Node's
    // fetch with the request as given (the console's API calls come through here).
    net: {
      fetch: async (input: string | Request, init?: RequestInit) => {
        const url = typeof input === 'string' ? input : input.url;
        if (!url.startsWith('file:')) return fetch(input, init);
        try {
          return new Response(await readFile(fileURLToPath(url)), { status: 200 });
        } catch {
          return new Response(null, { status: 404 });
        }
      },
    },
    protocol: {
      registerSchemesAsPrivileged: (schemes: Array<{ scheme: string }>) => calls.push(`privileged:${schemes.map((s) => s.scheme).join(',')}`),
      handle: (scheme: string, h: (r: Request) => Promise<Response>) => protocolHandlers.set(scheme, h),
    },
    safeStorage: { isEncryptionAvailable: () => true, getSelectedStorageBackend: () => 'basic_text', encryptString: () => Buffer.alloc(0), decryptString: () => '' },
    powerMonitor: new EventEmitter(),
    screen: { getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }] },
    session: {
      defaultSession: {
        setPermissionRequestHandler: (h: PermissionRequestHandler) => {
          permissions.request = h;
        },
        setPermissionCheckHandler: (h: PermissionCheckHandler) => {
          permissions.check = h;
        },
        webRequest: { onHeadersReceived: () => undefined },
        resolveProxy: async (url: string) => network.proxyFor(url),
      },
      /** An environment's own session (certificate rules): recorded, fetches with Node's fetch. */
      fromPartition: (partition: string) => {
        let session = partitions.get(partition);
        if (!session) {
          session = {
            verifyProc: undefined,
            fetch: (input: string | Request, init?: RequestInit) => fetch(input, init),
            resolveProxy: async (url: string) => network.proxyFor(url),
            setCertificateVerifyProc(proc: VerifyProc | null) {
              this.verifyProc = proc ?? undefined;
            },
          };
          partitions.set(partition, session);
        }
        return session;
      },
    },
    shell: { openExternal: async (url: string) => void opened.push(url), openPath: async (path: string) => (openedPaths.push(path), '') },
    clipboard: { writeText: (text: string) => void clipboardTexts.push(text) },
    crashReporter: { start: (options: Record<string, unknown>) => void calls.push(`crashReporter.start:${JSON.stringify(options)}`) },
  };
  /**
   * What Electron does on Quit: emits before-quit with an event a handler may cancel (to finish
   * its work first and call app.quit() again). Resolves with whether the quit was held back.
   */
  const emitBeforeQuit = (): boolean => {
    let prevented = false;
    appEmitter.emit('before-quit', { preventDefault: () => (prevented = true) });
    return prevented;
  };
  return { electron, partitions, network, calls, ipcHandlers, protocolHandlers, windows, trays, opened, clipboardTexts, openedPaths, notifications, askPermission, dialogs, menus, emitReady: () => readyResolve(), emitBeforeQuit, appEmitter };
}

/**
 * Makes `import 'electron'` resolve to `electron` for every module loaded from now on in this
 * Node process (a module loader hook): how the packaged-app harness and the desktop storm bench
 * run the main process's code outside Electron.
 */
export function useAsElectronModule(electron: object): void {
  (globalThis as { __svcRecordingElectron?: unknown }).__svcRecordingElectron = electron;
  const source = `const e = globalThis.__svcRecordingElectron; export const { ${Object.keys(electron).join(', ')} } = e; export default e;`;
  const hooks = `
export async function resolve(specifier, context, next) {
  if (specifier === 'electron') return { url: 'svc-stand-in:electron', shortCircuit: true };
  return next(specifier, context);
}
export async function load(url, context, next) {
  if (url === 'svc-stand-in:electron') return { format: 'module', shortCircuit: true, source: ${JSON.stringify(source)} };
  return next(url, context);
}`;
  register(`data:text/javascript,${encodeURIComponent(hooks)}`);
}
