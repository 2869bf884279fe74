import { EventEmitter } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import jwt from 'jsonwebtoken';
import { HubConnectionBuilder, HttpTransportType, LogLevel, type HubConnection } from '@microsoft/signalr';
import type { SvcEvent } from '../../../server/src/contracts/index.js';
import { createHub, type Hub, type HubAccessDecision, type HubOptions } from '../../../server/src/hub/createHub.js';

export const HUB_PATH = '/svc-monitoring/hub';
export const JWT_SECRET = 'hub-test-secret-0123456789abcdef';

/** A test token; `blocked: true` makes the access function answer 403. */
export function signToken(claims: Record<string, unknown> = {}, expiresInSeconds = 3600): string {
  return jwt.sign({ sub: 'tester', ...claims }, JWT_SECRET, { algorithm: 'HS256', expiresIn: expiresInSeconds });
}

/** A token expiring `seconds` - 1 to `seconds` from now (JWT exp has whole seconds: a 1 s lifetime could already be over). */
export function shortLivedToken(seconds = 2): string {
  return jwt.sign({ sub: 'tester', exp: Math.floor(Date.now() / 1000) + seconds }, JWT_SECRET, { algorithm: 'HS256' });
}

/** The access function a host would write: HS256 JWT verification, 401 without/bad token, 403 for blocked. */
export function jwtAccess(_req: unknown, token: string | undefined): HubAccessDecision {
  if (!token) return { ok: false, status: 401, message: 'A bearer token is required.' };
  try {
    const payload = jwt.verify(token, JWT_SECRET, { algorithms: ['HS256'] }) as jwt.JwtPayload;
    if (payload.blocked === true) return { ok: false, status: 403, message: 'This client may not use the hub.' };
    return { ok: true, expiresAtMs: typeof payload.exp === 'number' ? payload.exp * 1000 : undefined };
  } catch (err) {
    return { ok: false, status: 401, message: (err as Error).message, expired: err instanceof jwt.TokenExpiredError };
  }
}

export interface HubServer {
  hub: Hub;
  server: Server;
  emitter: EventEmitter;
  port: number;
  /** http://127.0.0.1:port + hub path */
  url: string;
  wsUrl: string;
  close(): Promise<void>;
}

/** express + http server on 127.0.0.1 (port 0 unless given), hub at the root, upgrades via handleUpgrade. */
export async function startHubServer(options: Partial<HubOptions> = {}, port = 0): Promise<HubServer> {
  const emitter = new EventEmitter();
  const hub = createHub({ path: HUB_PATH, access: jwtAccess, events: emitter, ...options });
  const app = express();
  app.use(hub.router);
  app.use((_req, res) => {
    res.status(404).json({ title: 'not found' });
  });
  const server = createServer(app);
  server.on('upgrade', (req, socket, head) => {
    if (!hub.handleUpgrade(req, socket, head)) socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const actual = (server.address() as AddressInfo).port;
  return {
    hub,
    server,
    emitter,
    port: actual,
    url: `http://127.0.0.1:${actual}${HUB_PATH}`,
    wsUrl: `ws://127.0.0.1:${actual}${HUB_PATH}`,
    async close() {
      await hub.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type TransportCase = { name: string; transport: HttpTransportType; skipNegotiation: boolean };
export const TRANSPORT_CASES: TransportCase[] = [
  { name: 'WebSockets', transport: HttpTransportType.WebSockets, skipNegotiation: false },
  { name: 'ServerSentEvents', transport: HttpTransportType.ServerSentEvents, skipNegotiation: false },
  { name: 'LongPolling', transport: HttpTransportType.LongPolling, skipNegotiation: false },
  { name: 'WebSockets with skipNegotiation', transport: HttpTransportType.WebSockets, skipNegotiation: true },
];

export function buildClient(url: string, c: TransportCase, token: () => string, reconnect = false): HubConnection {
  let builder = new HubConnectionBuilder()
    .withUrl(url, { transport: c.transport, skipNegotiation: c.skipNegotiation, accessTokenFactory: token })
    .configureLogging(LogLevel.None);
  if (reconnect) builder = builder.withAutomaticReconnect([0, 100, 200, 300, 500, 500, 500, 1000, 1000, 1000]);
  return builder.build();
}

/** Resolves with the first `count` SvcEvent arguments the client receives. */
export function collectEvents(connection: HubConnection, count: number, timeoutMs = 10_000): Promise<SvcEvent[]> {
  const received: SvcEvent[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`received ${received.length} of ${count} events`)), timeoutMs);
    connection.on('SvcEvent', (e: SvcEvent) => {
      received.push(e);
      if (received.length === count) {
        clearTimeout(timer);
        resolve(received);
      }
    });
  });
}

/** The suite's polling wait, re-exported for the hub files that import it from here. */
export { waitFor } from '../../fixtures/waitFor.js';

export function sampleEvent(overrides: Partial<SvcEvent> = {}): SvcEvent {
  return {
    kind: 'Failed',
    taskId: '0b6f3a8e-4a43-4a43-9d0e-1f2e3d4c5b6a',
    eventDateUtc: '2026-11-23T01:02:03.456Z',
    severity: 'Error',
    taskType: 'Billing.Invoices.SendInvoice',
    taskHandlerType: 'Billing.Invoices.SendInvoiceHandler',
    taskParameters: '{"invoice":42}',
    message: 'Task failed',
    exception: 'Error: boom\n    at handler',
    queueName: 'default',
    ...overrides,
  };
}
