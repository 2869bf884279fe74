// Benchmark of the live event hub (issue 6): `npm run bench:hub`.
// Roles (one file, three kinds of process):
//   parent: orchestrates; hosts 10 real @microsoft/signalr clients; merges the figures.
//   server: http + express + hub on 127.0.0.1:0 and an EventEmitter standing in for the engine,
//           emitting EVENTS_PER_SEC SvcEvents for SECONDS seconds; each event's taskId carries a
//           sequence number and its emit time (wall clock, sub-millisecond): bench-<seq>-<time>.
//   clients: LIGHT_CLIENTS / CLIENT_PROCESSES light clients each, speaking the protocol on `ws`
//           (skipNegotiation, JSON handshake, pings every 10 s).
// Latency = receipt time - emit time, over every (event, client) pair, in a 0.1 ms histogram.
// Loopback only; everything stops by itself. Last line: one JSON object.
import { fork, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import express from 'express';
import WebSocket from 'ws';
import { HubConnectionBuilder, HttpTransportType, LogLevel, type HubConnection } from '@microsoft/signalr';
import type { SvcEvent } from '../server/src/contracts/index.js';
import { createHub } from '../server/src/hub/createHub.js';

const LIGHT_CLIENTS = 1_000;
const REAL_CLIENTS = 10;
const CLIENT_PROCESSES = 2;
const EVENTS_PER_SEC = 1_000;
const SECONDS = 10;
const TOTAL_EVENTS = EVENTS_PER_SEC * SECONDS;
const HUB_PATH = '/svc-monitoring/hub';
const RS = '\u001e';
const BUCKET_MS = 0.1;
const BUCKETS = 100_000; // up to 10 s

const now = () => performance.timeOrigin + performance.now();
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

type Msg =
  | { t: 'port'; port: number }
  | { t: 'emit' }
  | { t: 'emitted'; count: number; ms: number }
  | { t: 'rss' }
  | { t: 'rssIs'; rssMb: number; connections: number; cpuMs: number; sysMs: number }
  | { t: 'connect'; port: number; count: number }
  | { t: 'connected' }
  | { t: 'report' }
  | { t: 'progress' }
  | { t: 'progressIs'; minReceived: number }
  | { t: 'histogram'; buckets: number[]; received: number; clients: number; minReceived: number; cpuMs: number };

function send(m: Msg): void {
  process.send?.(m);
}

class Histogram {
  readonly buckets = new Uint32Array(BUCKETS);
  record(ms: number): void {
    const i = Math.max(0, Math.min(BUCKETS - 1, Math.floor(ms / BUCKET_MS)));
    this.buckets[i]++;
  }
  add(other: ArrayLike<number>): void {
    for (let i = 0; i < BUCKETS; i++) this.buckets[i] += other[i];
  }
  count(): number {
    let n = 0;
    for (const b of this.buckets) n += b;
    return n;
  }
  percentile(p: number): number {
    const target = Math.ceil(this.count() * p);
    let seen = 0;
    for (let i = 0; i < BUCKETS; i++) {
      seen += this.buckets[i];
      if (seen >= target) return (i + 1) * BUCKET_MS;
    }
    return BUCKETS * BUCKET_MS;
  }
}

// Every record starts with the same bytes up to the task id, which is `bench-<seq>-<emit time>`.
const RECORD_PREFIX = Buffer.from('{"type":1,"target":"SvcEvent","arguments":[{"kind":"Completed","taskId":"bench-');
const SEPARATOR = 0x1e;
const DASH = 0x2d;
const QUOTE = 0x22;

/** Scans the raw bytes of one or more records (no decoding, no JSON.parse); returns how many new events it found. */
function scan(buf: Buffer, h: Histogram, seen: Uint8Array): number {
  const t = now();
  let found = 0;
  let start = 0;
  while (start < buf.length) {
    if (buf[start + 2] === 0x74 /* "t" of "type" */ && buf[start + 8] === 0x31 /* type 1 */) {
      let i = start + RECORD_PREFIX.length;
      let seq = 0;
      for (; buf[i] !== DASH; i++) seq = seq * 10 + (buf[i] - 0x30);
      let whole = 0;
      let frac = 0;
      let scale = 1;
      for (i++; buf[i] !== 0x2e && buf[i] !== QUOTE; i++) whole = whole * 10 + (buf[i] - 0x30);
      if (buf[i] === 0x2e) for (i++; buf[i] !== QUOTE; i++) (frac = frac * 10 + (buf[i] - 0x30)), (scale *= 10);
      if (seen[seq] === 0) {
        seen[seq] = 1;
        found++;
      }
      h.record(t - (whole + frac / scale));
    }
    const end = buf.indexOf(SEPARATOR, start);
    if (end === -1) break;
    start = end + 1;
  }
  return found;
}

function parseTaskId(taskId: string): { seq: number; emittedAt: number } {
  const [, seq, emittedAt] = taskId.split('-');
  return { seq: Number(seq), emittedAt: Number(emittedAt) };
}

// ---------------------------------------------------------------- server process
async function runServer(): Promise<void> {
  const engine = new EventEmitter();
  const hub = createHub({ path: HUB_PATH, access: () => ({ ok: true }), events: engine });
  const app = express();
  app.use(hub.router);
  const server = createServer(app);
  server.on('upgrade', (req, socket, head) => {
    if (!hub.handleUpgrade(req, socket, head)) socket.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  process.on('message', (m: Msg) => {
    if (m.t === 'rss') send({ t: 'rssIs', rssMb: process.memoryUsage().rss / 1024 / 1024, connections: hub.connectionCount(), cpuMs: cpuMs(), sysMs: process.cpuUsage().system / 1000 });
    if (m.t === 'emit') {
      const start = performance.now();
      let emitted = 0;
      const timer = setInterval(() => {
        const due = Math.min(TOTAL_EVENTS, Math.floor(((performance.now() - start) * EVENTS_PER_SEC) / 1000));
        while (emitted < due) {
          const seq = emitted++;
          const e: SvcEvent = {
            kind: 'Completed',
            taskId: `bench-${seq}-${now().toFixed(3)}`,
            eventDateUtc: new Date().toISOString(),
            severity: 'Information',
            taskType: 'Bench.Hub.NoOp',
            taskHandlerType: 'Bench.Hub.NoOpHandler',
            taskParameters: `{"seq":${seq}}`,
            queueName: 'default',
            message: 'Task completed',
            executionTimeMs: 1,
          };
          engine.emit('event', e);
        }
        if (emitted >= TOTAL_EVENTS) {
          clearInterval(timer);
          send({ t: 'emitted', count: emitted, ms: performance.now() - start });
        }
      }, 1);
    }
  });
  send({ t: 'port', port: (server.address() as AddressInfo).port });
}

// ---------------------------------------------------------------- light clients process
async function runClients(): Promise<void> {
  const h = new Histogram();
  const clients: { seen: Uint8Array; received: number; ws: WebSocket }[] = [];
  let cpuAtStart = 0;
  process.on('message', async (m: Msg) => {
    if (m.t === 'connect') {
      const url = `ws://127.0.0.1:${m.port}${HUB_PATH}`;
      for (let i = 0; i < m.count; i++) {
        const ws = new WebSocket(url, { perMessageDeflate: false, skipUTF8Validation: true });
        const c = { seen: new Uint8Array(TOTAL_EVENTS), received: 0, ws };
        clients.push(c);
        await new Promise<void>((resolve, reject) => {
          ws.once('error', reject);
          ws.once('open', () => {
            ws.send(`{"protocol":"json","version":1}${RS}`);
            ws.once('message', () => resolve()); // {} handshake answer
          });
        });
        ws.on('message', (data) => {
          c.received += scan(data as Buffer, h, c.seen);
        });
      }
      const ping = setInterval(() => {
        for (const c of clients) if (c.ws.readyState === WebSocket.OPEN) c.ws.send(`{"type":6}${RS}`);
      }, 10_000);
      ping.unref();
      cpuAtStart = cpuMs();
      send({ t: 'connected' });
    }
    if (m.t === 'progress') {
      let minReceived = Infinity;
      for (const c of clients) minReceived = Math.min(minReceived, c.received);
      send({ t: 'progressIs', minReceived });
    }
    if (m.t === 'report') {
      let received = 0;
      let minReceived = Infinity;
      for (const c of clients) {
        received += c.received;
        minReceived = Math.min(minReceived, c.received);
      }
      send({ t: 'histogram', buckets: Array.from(h.buckets), received, clients: clients.length, minReceived, cpuMs: cpuMs() - cpuAtStart });
      for (const c of clients) c.ws.terminate();
      setTimeout(() => process.exit(0), 100);
    }
  });
}

// ---------------------------------------------------------------- parent
function waitMsg<T extends Msg['t']>(child: ChildProcess, t: T): Promise<Extract<Msg, { t: T }>> {
  return new Promise((resolve) => {
    const on = (m: Msg) => {
      if (m.t === t) {
        child.off('message', on);
        resolve(m as Extract<Msg, { t: T }>);
      }
    };
    child.on('message', on);
  });
}

async function runParent(): Promise<void> {
  const self = fileURLToPath(import.meta.url);
  const children: ChildProcess[] = [];
  const kill = () => children.forEach((c) => c.kill('SIGKILL'));
  process.on('exit', kill);
  const hardStop = setTimeout(() => {
    console.error('bench:hub did not finish in 180 s; stopping');
    kill();
    process.exit(1);
  }, 180_000);

  const server = fork(self, ['server']);
  children.push(server);
  const { port } = await waitMsg(server, 'port');
  const rss = async () => {
    server.send({ t: 'rss' } satisfies Msg);
    return waitMsg(server, 'rssIs');
  };
  const idle = await rss();
  console.log(`server on 127.0.0.1:${port}, idle RSS ${idle.rssMb.toFixed(1)} MB`);

  const clientProcs: ChildProcess[] = [];
  for (let i = 0; i < CLIENT_PROCESSES; i++) {
    const c = fork(self, ['clients']);
    children.push(c);
    clientProcs.push(c);
  }
  const t0 = performance.now();
  await Promise.all(
    clientProcs.map((c) => {
      c.send({ t: 'connect', port, count: LIGHT_CLIENTS / CLIENT_PROCESSES } satisfies Msg);
      return waitMsg(c, 'connected');
    }),
  );
  // The real clients: 4 WebSockets, 3 Server-Sent Events, 3 long polling.
  const transports = [
    ...Array<HttpTransportType>(4).fill(HttpTransportType.WebSockets),
    ...Array<HttpTransportType>(3).fill(HttpTransportType.ServerSentEvents),
    ...Array<HttpTransportType>(3).fill(HttpTransportType.LongPolling),
  ];
  const realHist = new Histogram();
  const real: { conn: HubConnection; seen: Uint8Array; received: number }[] = [];
  for (const transport of transports.slice(0, REAL_CLIENTS)) {
    const conn = new HubConnectionBuilder()
      .withUrl(`http://127.0.0.1:${port}${HUB_PATH}`, { transport })
      .configureLogging(LogLevel.None)
      .build();
    const r = { conn, seen: new Uint8Array(TOTAL_EVENTS), received: 0 };
    conn.on('SvcEvent', (e: SvcEvent) => {
      const t = now();
      const { seq, emittedAt } = parseTaskId(e.taskId);
      if (r.seen[seq] === 0) {
        r.seen[seq] = 1;
        r.received++;
      }
      realHist.record(t - emittedAt);
    });
    await conn.start();
    real.push(r);
  }
  const connected = await rss();
  console.log(
    `${LIGHT_CLIENTS} light + ${REAL_CLIENTS} real clients connected in ${(performance.now() - t0).toFixed(0)} ms; ` +
      `server sees ${connected.connections}; RSS ${connected.rssMb.toFixed(1)} MB`,
  );

  let peakRss = connected.rssMb;
  const sampler = setInterval(() => {
    void rss().then((r) => (peakRss = Math.max(peakRss, r.rssMb)));
  }, 250);
  server.send({ t: 'emit' } satisfies Msg);
  const emitted = await waitMsg(server, 'emitted');
  const afterEmit = await rss();
  console.log(`emitted ${emitted.count} events in ${emitted.ms.toFixed(0)} ms; server CPU during emission ${(afterEmit.cpuMs - connected.cpuMs).toFixed(0)} ms (system ${(afterEmit.sysMs - connected.sysMs).toFixed(0)} ms)`);
  // Let deliveries drain (a lost event stays lost; this only waits up to 15 s for stragglers).
  const drainDeadline = performance.now() + 15_000;
  const lightMin = async () => {
    const mins = await Promise.all(
      clientProcs.map((c) => {
        c.send({ t: 'progress' } satisfies Msg);
        return waitMsg(c, 'progressIs');
      }),
    );
    return Math.min(...mins.map((m) => m.minReceived));
  };
  while (performance.now() < drainDeadline && (real.some((r) => r.received < TOTAL_EVENTS) || (await lightMin()) < TOTAL_EVENTS)) {
    await new Promise((r) => setTimeout(r, 100));
  }
  const drainedAfterMs = performance.now() - (drainDeadline - 15_000);
  console.log(`all deliveries drained ${drainedAfterMs.toFixed(0)} ms after the last emit`);
  clearInterval(sampler);
  const final = await rss();
  peakRss = Math.max(peakRss, final.rssMb);

  const hist = new Histogram();
  hist.add(realHist.buckets);
  let lightReceived = 0;
  let minLight = Infinity;
  for (const c of clientProcs) {
    c.send({ t: 'report' } satisfies Msg);
    const rep = await waitMsg(c, 'histogram');
    hist.add(rep.buckets);
    lightReceived += rep.received;
    minLight = Math.min(minLight, rep.minReceived);
    console.log(`light client process: ${rep.clients} clients, CPU ${rep.cpuMs.toFixed(0)} ms`);
  }
  const realReceived = real.reduce((n, r) => n + r.received, 0);
  const expected = TOTAL_EVENTS * (LIGHT_CLIENTS + REAL_CLIENTS);
  const lost = expected - lightReceived - realReceived;
  for (const r of real) await r.conn.stop();
  clearTimeout(hardStop);
  kill();

  const p50 = hist.percentile(0.5);
  const p99 = hist.percentile(0.99);
  const realP99 = realHist.percentile(0.99);
  console.log(`deliveries: ${hist.count()} (expected ${expected}); lost ${lost}; fewest received by one light client ${minLight}`);
  console.log(`latency emit->receipt over all clients: p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max bucket ${hist.percentile(1).toFixed(1)} ms`);
  console.log(`real @microsoft/signalr clients: p50 ${realHist.percentile(0.5).toFixed(1)} ms, p99 ${realP99.toFixed(1)} ms, received ${realReceived}`);
  console.log(`server RSS: idle ${idle.rssMb.toFixed(1)} MB, connected ${connected.rssMb.toFixed(1)} MB, peak ${peakRss.toFixed(1)} MB`);
  console.log(`targets: p99 < 50 ms ${p99 < 50 ? 'met' : 'MISSED'}; RSS < 300 MB ${peakRss < 300 ? 'met' : 'MISSED'}; lost = 0 ${lost === 0 ? 'met' : 'MISSED'}`);
  console.log(
    JSON.stringify({
      bench: 'hub',
      clients: LIGHT_CLIENTS,
      eventsPerSec: EVENTS_PER_SEC,
      p50Ms: Number(p50.toFixed(1)),
      p99Ms: Number(p99.toFixed(1)),
      lost,
      rssMb: Number(peakRss.toFixed(1)),
    }),
  );
  process.exit(0);
}

const role = process.argv[2];
if (role === 'server') await runServer();
else if (role === 'clients') await runClients();
else await runParent();
