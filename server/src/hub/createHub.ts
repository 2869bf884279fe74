import type { IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Duplex } from 'node:stream';
import type { Router } from 'express';
import { WebSocketServer } from 'ws';
import type { SvcEvent } from '../contracts/index.js';
import { ConnectionRegistry } from './ConnectionRegistry.js';
import { eventFrame } from './eventFrame.js';
import { invocationFrame } from './protocol.js';

const omitNulls = (_key: string, value: unknown): unknown => (value === null ? undefined : value);
import type { HubContext } from './HubContext.js';
import { createHubRouter } from './hubRouter.js';
import { startKeepAlive } from './keepAlive.js';
import { resolveHubOptions } from './options.js';
import { createUpgradeHandler } from './webSocketUpgrade.js';

export type HubAccessDecision =
  | { ok: true; expiresAtMs?: number } // expiresAtMs: JWT exp; absent = no expiry timer
  | { ok: false; status: 400 | 401 | 403; message: string; /** 401 for a genuine token past its exp */ expired?: boolean };

export interface HubEventSource {
  on(event: 'event', listener: (e: SvcEvent) => void): unknown;
  off(event: 'event', listener: (e: SvcEvent) => void): unknown;
}

export interface HubOptions {
  path: string; // '/svc-monitoring/hub'
  /** Called on negotiate and on every connect/poll/send request, with the token from `Authorization: Bearer` or `access_token`. */
  access: (req: IncomingMessage, accessToken: string | undefined) => HubAccessDecision;
  events?: HubEventSource; // engine; absent = no events
  includeExecutionLogs?: boolean; // strip `executionLogs` from events unless true
  keepAliveIntervalMs?: number;
  clientTimeoutMs?: number;
  maxMessageBytes?: number;
  /** A connection whose send buffer would pass this is closed at once (default 16 MiB). */
  maxBufferedBytes?: number;
  /**
   * A connection whose send buffer stays over slowClientBufferedBytes (default 1 MiB, at most
   * maxBufferedBytes) for slowClientGraceMs (default 10 s) is closed: it is not catching up. A
   * client briefly behind (a busy machine, a pause) catches up instead.
   */
  slowClientBufferedBytes?: number;
  slowClientGraceMs?: number;
  longPollTimeoutMs?: number;
  /** The client a connection counts against (default: the socket's peer address). */
  clientKey?: (req: IncomingMessage) => string | undefined;
  /** Live connections one client may hold (default: no cap; the monitoring sets 20); beyond → 429. */
  maxConnectionsPerClient?: number;
  /** Live connections in total (default: no cap; the monitoring sets 1000); beyond → 503. */
  maxConnections?: number;
}

export interface Hub {
  /** Handles the FULL paths `${path}/negotiate` and `${path}` (GET SSE / GET long poll / POST send / DELETE); mount at the app root. */
  router: Router;
  /** True when the URL is the hub path and it took the socket (refusals answered over raw HTTP). */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /** Also called automatically for events from `events`. */
  broadcast(event: SvcEvent): void;
  /** Sends one invocation of another client method (e.g. `BulkProgress`) to every connection, batched like events. */
  broadcastInvocation(target: string, payload: unknown): void;
  connectionCount(): number;
  /** Open connections by transport, and hub messages written to connections since creation (for metrics). */
  stats(): HubStats;
  /** Sends Close to all, ends transports, stops timers. */
  close(): Promise<void>;
}

export interface HubStats {
  connectionsByTransport: Record<string, number>;
  messagesSent: number;
  /** New connections refused by status: 429 (a client at its cap), 503 (the hub at its cap). */
  rejected: { 429: number; 503: number };
  /** Connections closed because their send buffer showed they could not keep up. */
  slowClientCloses: number;
}

const CLOSE_WAIT_MS = 2_000;
/** Minimum spacing of broadcast flushes (events in between are batched into one write). */
export const BROADCAST_FLUSH_INTERVAL_MS = 20;
/** How long a closed long-polling connection still answers polls (Close frame, then 204). */
const RETIRED_LONG_POLL_MS = 30_000;

/** A SignalR-protocol hub server (JSON hub protocol; WebSockets, SSE, long polling). */
export function createHub(options: HubOptions): Hub {
  const resolved = resolveHubOptions(options);
  const registry = new ConnectionRegistry(
    {
      maxMessageBytes: resolved.maxMessageBytes,
      maxBufferedBytes: resolved.maxBufferedBytes,
      slowClientBufferedBytes: resolved.slowClientBufferedBytes,
      slowClientGraceMs: resolved.slowClientGraceMs,
    },
    RETIRED_LONG_POLL_MS,
    { maxConnectionsPerClient: resolved.maxConnectionsPerClient, maxConnections: resolved.maxConnections },
  );
  let closed = false;
  const ctx: HubContext = { options: resolved, registry, isClosed: () => closed };
  const wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    // Frames up to this size reach the protocol layer, which closes with an error above maxMessageBytes.
    maxPayload: Math.max(resolved.maxMessageBytes * 4, 64 * 1024),
  });
  const stopKeepAlive = startKeepAlive(registry, resolved);

  // Events go out as one transport write per client per flush: right away (next turn of the
  // event loop) when the last flush is older than BROADCAST_FLUSH_INTERVAL_MS, else at that
  // interval. This bounds writes (syscalls) per client at high event rates.
  let pending: string[] = [];
  let flushTimer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  let lastFlushMs = 0;
  let messagesSent = 0;
  const flush = () => {
    flushTimer = undefined;
    lastFlushMs = performance.now();
    if (pending.length === 0) return;
    const text = pending.length === 1 ? pending[0] : pending.join('');
    const frames = pending.length;
    pending = [];
    const utf8 = Buffer.from(text, 'utf8');
    const nowMs = Date.now();
    for (const connection of registry.connections()) {
      if (!connection.isOpen) continue;
      connection.send(text, utf8, nowMs);
      messagesSent += frames;
    }
  };
  const broadcast = (event: SvcEvent) => enqueue(eventFrame(event, resolved.includeExecutionLogs));
  const enqueue = (frame: string) => {
    if (closed) return;
    pending.push(frame);
    if (flushTimer !== undefined) return;
    const wait = lastFlushMs + BROADCAST_FLUSH_INTERVAL_MS - performance.now();
    flushTimer = wait <= 0 ? setImmediate(flush) : setTimeout(flush, wait);
  };
  options.events?.on('event', broadcast);

  return {
    router: createHubRouter(ctx),
    handleUpgrade: createUpgradeHandler(ctx, wss),
    broadcast,
    broadcastInvocation: (target, payload) => enqueue(invocationFrame(target, [payload], omitNulls)),
    connectionCount: () => registry.openCount(),
    stats() {
      const connectionsByTransport: Record<string, number> = {};
      for (const c of registry.connections()) {
        if (!c.isOpen || c.transportKind === undefined) continue;
        connectionsByTransport[c.transportKind] = (connectionsByTransport[c.transportKind] ?? 0) + 1;
      }
      return { connectionsByTransport, messagesSent, rejected: { ...registry.rejected }, slowClientCloses: registry.slowClientCloses };
    },
    async close() {
      if (closed) return;
      if (flushTimer !== undefined) {
        clearTimeout(flushTimer as NodeJS.Timeout);
        clearImmediate(flushTimer as NodeJS.Immediate);
      }
      flush();
      closed = true;
      stopKeepAlive();
      options.events?.off('event', broadcast);
      for (const connection of [...registry.connections()]) connection.close(undefined, true);
      registry.stopTimers();
      const deadline = Date.now() + CLOSE_WAIT_MS;
      while (wss.clients.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      for (const ws of wss.clients) ws.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
