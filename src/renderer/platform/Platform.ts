import type { ApiOperation, ApiParams, ApiResult } from '../../../server/src/contracts/api.js';
import type { SvcEvent } from '../../../server/src/contracts/events.js';
import type { BulkOperation } from '../../../server/src/contracts/operations.js';
import type { IsoTimestamp } from '../../../server/src/contracts/task.js';
import type { LiveState } from '../../../server/src/contracts/liveConnection.js';

/**
 * Everything the dashboard needs from its host, in one small interface. The web build
 * implements it over axios + sessionStorage + @microsoft/signalr (platform/web); the desktop
 * console implements it over its Electron bridge (the renderer never holds a token there).
 * Pages and stores only ever talk to this interface.
 */
export interface Platform {
  /** Which implementation this is (diagnostics only; pages must branch on `capabilities`). */
  readonly name: string;
  readonly capabilities: PlatformCapabilities;
  /** Performs one operation of the API catalogue. Rejects with an ApiError. */
  call<Op extends ApiOperation>(op: Op, params: ApiParams<Op>): Promise<ApiResult<Op>>;
  /** Where the session (who is logged in) lives. */
  readonly session: SessionStorageLike;
  /** Opens the live-events connection; state changes are reported through onState. */
  connectLive(onEvent: (event: SvcEvent) => void, onState: (state: LiveState, detail?: string) => void): LiveConnection;
  /**
   * Bulk actions' progress as the live connection delivers it (the hub's BulkProgress), while
   * that connection is up; returns the unsubscribe. Absent where no bulk action can start.
   */
  followBulkProgress?(onProgress: (progress: BulkOperation) => void): () => void;
  /** Tells the user about something outside the page (desktop notifications); may be a no-op. */
  notify(title: string, body: string): void;
}

export interface PlatformCapabilities {
  /** The management actions slot may be shown (still gated by managementEnabled and canManage). */
  manage: boolean;
  /** The platform can log out of the server-side session itself. */
  notifications: boolean;
  /**
   * The host draws its own brand, theme selector and chrome around the dashboard (the desktop
   * console): the dashboard's navigation shows icons only (labels as tooltips and accessible
   * names) and it leaves out its own brand and theme selector, giving the width to the content.
   */
  hostChrome: boolean;
}

/** What the renderer knows about the current session. `token` is absent where the host keeps it. */
export interface SessionInfo {
  username: string;
  expiresAt?: IsoTimestamp;
  canManage: boolean;
  token?: string;
}

export interface SessionStorageLike {
  load(): SessionInfo | null;
  save(session: SessionInfo): void;
  clear(): void;
}

export interface LiveConnection {
  stop(): Promise<void>;
}
