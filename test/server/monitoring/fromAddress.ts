import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { createMonitoring, type Monitoring } from '../../../server/src/monitoring/createMonitoring.js';
import type { MonitoringOptions } from '../../../server/src/monitoring/options.js';
import { openSqliteStorage } from '../../../server/src/storage/sqlite/openSqliteStorage.js';

/** The whole 127.0.0.0/8 range is local: these stand for a reverse proxy and for clients. */
export const PROXY = '127.0.0.2';
export const CLIENT = '127.0.0.3';
export const OTHER_CLIENT = '127.0.0.4';

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  body: any;
}

/** One HTTP request whose socket is bound to `from` (the server sees that peer address). */
export function httpFrom(
  from: string,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<Reply> {
  const payload = init.body === undefined ? undefined : JSON.stringify(init.body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: init.method ?? (payload === undefined ? 'GET' : 'POST'),
        localAddress: from,
        agent: false,
        headers: { ...(payload === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            /* not JSON */
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

export interface UpgradeReply {
  /** The status line's code, 0 when nothing was answered. */
  status: number;
  text: string;
  /** Whether the server closed the socket (false: still open when we gave up waiting, or accepted with 101). */
  closedByServer: boolean;
}

/**
 * A raw `Upgrade: websocket` request from `from` to `path`; resolves when the server closes the
 * socket, or after `giveUpMs` with closedByServer false (a hanging socket).
 */
export function rawUpgrade(from: string, port: number, path: string, headers: Record<string, string> = {}, giveUpMs = 3_000): Promise<UpgradeReply> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress: from });
    let text = '';
    let done = false;
    const finish = (closedByServer: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      resolve({ status: m ? Number(m[1]) : 0, text, closedByServer });
    };
    const timer = setTimeout(() => finish(false), giveUpMs);
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      text += d;
      // An accepted upgrade stays open by design: done once its head is in.
      if (text.startsWith('HTTP/1.1 101') && text.includes('\r\n\r\n')) finish(false);
    });
    socket.on('end', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('error', (err) => (done ? undefined : reject(err)));
    socket.on('connect', () => {
      const lines = [
        `GET ${path} HTTP/1.1`,
        `Host: 127.0.0.1:${port}`,
        'Connection: Upgrade',
        'Upgrade: websocket',
        'Sec-WebSocket-Version: 13',
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
        ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
      ];
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    });
  });
}

export interface EngineServed {
  port: number;
  base: string;
  api: string;
  monitoring: Monitoring;
  server: Server;
  close(): Promise<void>;
}

/**
 * The full registration (with a hub) on 127.0.0.1: an EventEmitter stands in for the engine's
 * event source; schedule operations are unused.
 */
export async function serveWithHub(options: MonitoringOptions): Promise<EngineServed> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-sec-'));
  const storage = openSqliteStorage({ file: join(dir, 'tasks.db') });
  const engine = Object.assign(new EventEmitter(), {
    schedules: {
      requeue: () => Promise.reject(new Error('unused')),
      resume: () => Promise.reject(new Error('unused')),
      cancel: () => Promise.reject(new Error('unused')),
    },
  });
  let monitoring: Monitoring;
  try {
    monitoring = createMonitoring(
      { engine, storage },
      { jwtSecret: 'security-test-secret-0123456789abcdef', logger: { info: () => undefined, warn: () => undefined }, ...options },
    );
  } catch (err) {
    storage.close();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const app = express();
  app.use(monitoring.router);
  const server = createServer(app);
  monitoring.attach(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const base = `http://127.0.0.1:${port}/svc-monitoring`;
  return {
    port,
    base,
    api: `${base}/api`,
    monitoring,
    server,
    async close() {
      await monitoring.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
