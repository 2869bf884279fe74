import type { IpcChannelName } from '../main/ipc/ipcChannelNames.js';
import type { IpcContract, IpcResult } from '../main/ipc/ipcContract.js';
import type { RendererEvent } from '../main/rendererEvents.js';

/**
 * The one object the preload exposes on `window.svcMonitor`. Every call answers an
 * envelope (`{ok, value}` or `{ok:false, error}` with a code, message, HTTP status and
 * problem details) because Electron keeps only the message of a thrown error.
 */
export interface DesktopBridge {
  invoke<C extends IpcChannelName>(channel: C, ...args: IpcContract[C]['args']): Promise<IpcResult<IpcContract[C]['result']>>;
  onEvent(listener: (event: RendererEvent) => void): () => void;
  /** `process.platform` of the machine (for Cmd vs Ctrl labels). */
  readonly platform: string;
}

export type { IpcContract, IpcResult, RendererEvent, IpcChannelName };
