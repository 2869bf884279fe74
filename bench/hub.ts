// Benchmark of the live event hub against its floor (a bare `ws` broadcast), at 1,000 and 5,000 clients: `npm run bench:hub`.
// Roles (one file, three kinds of process):
//   parent: orchestrates; hosts 10 real @microsoft/signalr clients; merges the figures.
//   server: the hub (http + express + hub on 127.0.0.1:0, an EventEmitter standing in for the
//           engine) and the floor: a bare `ws` server in the same process broadcasting the same
//           frames (the hub's own serialization of each event) to its sockets with the hub's
//           batching (one write per socket per flush, flushes at least BROADCAST_FLUSH_INTERVAL_MS
//           apart), without the hub's protocol, registry or buffer checks. Each round emits
//           EVENTS_PER_SEC events for SECONDS seconds to one of them; each event's taskId carries
//           a sequence number and its emit time (wall clock, sub-millisecond): bench-<seq>-<time>.
//   clients: light clients spread over CLIENT_PROCESSES processes, speaking the protocol on `ws`
//           (skipNegotiation, JSON handshake, a ping every 10 s); for the floor the same number of
//           plain sockets. RECEIVING of them time every event; the others (`--clients` beyond
//           RECEIVING) are idle connections: they keep the connection alive and count what they
//           get, timing nothing (the hub sends every event to every connection).
// Rounds alternate hub, floor, floor, hub, hub, floor… (BENCH_HUB_ROUNDS pairs, default 3): the machine's load
// moves both alike, so hub p99 / floor p99 of a pair compares within one run; the ratio is the
// median of the pairs'. Latency = receipt time - emit time over every (event, receiving client)
// pair, in a 0.1 ms histogram. The 10 real clients (4 WebSockets, 3 SSE, 3 long polling) stay
// connected to the hub throughout and must get every hub event; their latency is printed apart.
// Options: --clients N (all connections; default RECEIVING; 5000 = 1,000 receiving + 4,000 idle);
// BENCH_HUB_CLIENTS (RECEIVING, default 1000), BENCH_HUB_SECONDS (10), BENCH_HUB_EVENTS_PER_SEC
// (1000), BENCH_HUB_ROUNDS (3). Loopback only; everything stops by itself.
// Last line: {"bench":"hub","clients":…,"p99Ms":…,"floorP99Ms":…,"ratio":…,"lost":…,"rssMb":…}
import { fork, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import express from 'express';
import WebSocket, { WebSocketServer } from 'ws';
import { HubConnectionBuilder, HttpTransportType, LogLevel, type HubConnection } from '@microsoft/signalr';
import type { SvcEvent } from '../server/src/contracts/index.js';
import { BROADCAST_FLUSH_INTERVAL_MS, createHub } from '../server/src/hub/createHub.js';
import { eventFrame } from '../server/src/hub/eventFrame.js';

const positive = (name: string, fallback: number): number => {
  const raw = process.env[name];
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`bench:hub: ${name} must be a positive number (got "${raw}")`);
  return value;
};
const { values: cli } = parseArgs({ options: { clients: { type: 'string' } }, strict: true, allowPositionals: true });
const RECEIVING_DEFAULT = Math.floor(positive('BENCH_HUB_CLIENTS', 1_000));
const TOTAL_CLIENTS = cli.clients === undefined ? RECEIVING_DEFAULT : Number(cli.clients);
if (!Number.isInteger(TOTAL_CLIENTS) || TOTAL_CLIENTS < 1) throw new Error(`bench:hub: --clients must be a positive integer (got "${cli.clients}")`);
const RECEIVING = Math.min(RECEIVING_DEFAULT, TOTAL_CLIENTS);
const IDLE = TOTAL_CLIENTS - RECEIVING;
const REAL_CLIENTS = 10;
const CLIENT_PROCESSES = Math.min(4, Math.max(2, Math.ceil(TOTAL_CLIENTS / 1_250)));
const EVENTS_PER_SEC = positive('BENCH_HUB_EVENTS_PER_SEC', 1_000);
const SECONDS = positive('BENCH_HUB_SECONDS', 10);
const ROUNDS = Math.floor(positive('BENCH_HUB_ROUNDS', 3));
const TOTAL_EVENTS = Math.round(EVENTS_PER_SEC * SECONDS);
const HUB_PATH = '/svc-monitoring/hub';
const RS = '\u001e';
const BUCKET_MS = 0.1;
const BUCKETS = 100_000; // up to 10 s
const DRAIN_MS = 15_000;

type Side = 'hub' | 'floor';
const now = () => performance.timeOrigin + performance.now();
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

type Msg =
  | { t: 'ports'; hub: number; floor: number }
  | { t: 'emit'; side: Side }
  | { t: 'emitted'; count: number; ms: number }
  | { t: 'rss'; id: number }
  | { t: 'rssIs'; id: number; rssMb: number; connections: number; floorSockets: number; cpuMs: number }
  | { t: 'connect'; side: Side; port: number; receiving: number; idle: number }
  | { t: 'connected' }
  | { t: 'progress' }
  | { t: 'progressIs'; minReceived: number }
  | { t: 'report' }
  | { t: 'histogram'; buckets: number[]; received: number; minReceived: number; cpuMs: number }
  | { t: 'disconnect' }
  | { t: 'disconnected' };

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

/**
 * Scans the raw bytes of one or more records (no decoding, no JSON.parse); returns how many new
 * events it found. Without a histogram (an idle client) it only counts them.
 */
function scan(buf: Buffer, h: Histogram | undefined, seen: Uint8Array): number {
  const t = now();
  let found = 0;
  let start = 0;
  while (start < buf.length) {
    if (buf[start + 2] === 0x74 /* "t" of "type" */ && buf[start + 8] === 0x31 /* type 1 */) {
      let i = start + RECORD_PREFIX.length;
      let seq = 0;
      for (; buf[i] !== DASH; i++) seq = seq * 10 + (buf[i] - 0x30);
      if (seen[seq] === 0) {
        seen[seq] = 1;
        found++;
      }
      if (h) {
        let whole = 0;
        let frac = 0;
        let scale = 1;
        for (i++; buf[i] !== 0x2e && buf[i] !== QUOTE; i++) whole = whole * 10 + (buf[i] - 0x30);
        if (buf[i] === 0x2e) for (i++; buf[i] !== QUOTE; i++) (frac = frac * 10 + (buf[i] - 0x30)), (scale *= 10);
        h.record(t - (whole + frac / scale));
      }
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

function benchEvent(seq: number): SvcEvent {
  return {
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
}

// ---------------------------------------------------------------- server process
/** The floor: a bare `ws` server sending each flush's frames to every socket, batched as the hub batches. */
function startFloor(): Promise<{ port: number; broadcast: (frame: string) => void; sockets: () => number }> {
  const server = createServer();
  const wss = new WebSocketServer({ server, perMessageDeflate: false });
  wss.on('connection', (ws) => ws.on('error', () => undefined));
  let pending: string[] = [];
  let timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  let lastFlushMs = 0;
  const flush = () => {
    timer = undefined;
    lastFlushMs = performance.now();
    const utf8 = Buffer.from(pending.join(''), 'utf8');
    pending = [];
    for (const ws of wss.clients) ws.send(utf8, { binary: false });
  };
  const broadcast = (frame: string) => {
    pending.push(frame);
    if (timer !== undefined) return;
    const wait = lastFlushMs + BROADCAST_FLUSH_INTERVAL_MS - performance.now();
    timer = wait <= 0 ? setImmediate(flush) : setTimeout(flush, wait);
  };
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ port: (server.address() as AddressInfo).port, broadcast, sockets: () => wss.clients.size })));
}

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
  const floor = await startFloor();
  process.on('message', (m: Msg) => {
    if (m.t === 'rss') send({ t: 'rssIs', id: m.id, rssMb: process.memoryUsage().rss / 1024 / 1024, connections: hub.connectionCount(), floorSockets: floor.sockets(), cpuMs: cpuMs() });
    if (m.t === 'emit') {
      // The hub serializes each event itself (its own listener); the floor gets the same frame text.
      const deliver = m.side === 'hub' ? (e: SvcEvent) => engine.emit('event', e) : (e: SvcEvent) => floor.broadcast(eventFrame(e, false));
      const start = performance.now();
      let emitted = 0;
      const timer = setInterval(() => {
        const due = Math.min(TOTAL_EVENTS, Math.floor(((performance.now() - start) * EVENTS_PER_SEC) / 1000));
        while (emitted < due) deliver(benchEvent(emitted++));
        if (emitted >= TOTAL_EVENTS) {
          clearInterval(timer);
          send({ t: 'emitted', count: emitted, ms: performance.now() - start });
        }
      }, 1);
    }
  });
  send({ t: 'ports', hub: (server.address() as AddressInfo).port, floor: floor.port });
}

// ---------------------------------------------------------------- light clients process
async function runClients(): Promise<void> {
  let h = new Histogram();
  let clients: { seen: Uint8Array; received: number; ws: WebSocket; open: boolean }[] = [];
  let cpuAtStart = 0;
  const open = (url: string, side: Side, timed: boolean) => {
    const ws = new WebSocket(url, { perMessageDeflate: false, skipUTF8Validation: true });
    const c = { seen: new Uint8Array(TOTAL_EVENTS), received: 0, ws, open: false };
    clients.push(c);
    return new Promise<void>((resolve, reject) => {
      ws.once('error', reject);
      ws.once('open', () => {
        ws.on('message', (data) => {
          c.received += scan(data as Buffer, timed ? h : undefined, c.seen);
        });
        if (side === 'floor') return resolve();
        ws.send(`{"protocol":"json","version":1}${RS}`);
        ws.once('message', () => {
          c.open = true; // {} handshake answer: from now on it pings
          resolve();
        });
      });
    });
  };
  let ping: NodeJS.Timeout | undefined;
  process.on('message', async (m: Msg) => {
    if (m.t === 'connect') {
      const url = m.side === 'hub' ? `ws://127.0.0.1:${m.port}${HUB_PATH}` : `ws://127.0.0.1:${m.port}/`;
      // a few at a time: thousands of handshakes at once would measure the listen backlog
      const kinds = [...Array<boolean>(m.receiving).fill(true), ...Array<boolean>(m.idle).fill(false)];
      // Keep-alive from each connection's handshake on, as a SignalR client does: connecting
      // thousands takes seconds, and a ping that waited for the last of them would let the first
      // ones reach the hub's client timeout.
      if (m.side === 'hub') {
        ping = setInterval(() => {
          for (const c of clients) if (c.open && c.ws.readyState === WebSocket.OPEN) c.ws.send(`{"type":6}${RS}`);
        }, 10_000);
        ping.unref();
      }
      for (let i = 0; i < kinds.length; i += 50) await Promise.all(kinds.slice(i, i + 50).map((timed) => open(url, m.side, timed)));
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
      send({ t: 'histogram', buckets: Array.from(h.buckets), received, minReceived, cpuMs: cpuMs() - cpuAtStart });
    }
    if (m.t === 'disconnect') {
      clearInterval(ping);
      await Promise.all(
        clients.map(
          (c) =>
            new Promise<void>((resolve) => {
              if (c.ws.readyState === WebSocket.CLOSED) return resolve();
              c.ws.once('close', () => resolve());
              c.ws.terminate();
            }),
        ),
      );
      clients = [];
      h = new Histogram();
      send({ t: 'disconnected' });
    }
  });
}

// ---------------------------------------------------------------- parent
function waitMsg<T extends Msg['t']>(child: ChildProcess, t: T, match: (m: Extract<Msg, { t: T }>) => boolean = () => true): Promise<Extract<Msg, { t: T }>> {
  return new Promise((resolve) => {
    const on = (m: Msg) => {
      if (m.t === t && match(m as Extract<Msg, { t: T }>)) {
        child.off('message', on);
        resolve(m as Extract<Msg, { t: T }>);
      }
    };
    child.on('message', on);
  });
}

const split = (n: number, parts: number, i: number) => Math.floor(n / parts) + (i < n % parts ? 1 : 0);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const r1 = (n: number) => Math.round(n * 10) / 10;

interface RoundResult {
  side: Side;
  p50: number;
  p99: number;
  lost: number;
  serverCpuMs: number;
  clientCpuMs: number;
  drainedMs: number;
}

async function runParent(): Promise<void> {
  const self = fileURLToPath(import.meta.url);
  const children: ChildProcess[] = [];
  const kill = () => children.forEach((c) => c.kill('SIGKILL'));
  process.on('exit', kill);
  const budgetMs = 120_000 + ROUNDS * 2 * (SECONDS * 1000 + DRAIN_MS + TOTAL_CLIENTS * 4);
  const hardStop = setTimeout(() => {
    console.error(`bench:hub did not finish in ${Math.round(budgetMs / 1000)} s; stopping`);
    kill();
    process.exit(1);
  }, budgetMs);

  const server = fork(self, ['server']);
  children.push(server);
  const ports = await waitMsg(server, 'ports');
  let rssRequests = 0;
  const rss = async () => {
    const id = ++rssRequests;
    server.send({ t: 'rss', id } satisfies Msg);
    return waitMsg(server, 'rssIs', (m) => m.id === id);
  };
  const idleRss = await rss();
  console.log(`hub on 127.0.0.1:${ports.hub}, floor (bare ws) on 127.0.0.1:${ports.floor}; idle RSS ${idleRss.rssMb.toFixed(1)} MB; load ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  console.log(`${TOTAL_CLIENTS} connections (${RECEIVING} timing every event, ${IDLE} idle) in ${CLIENT_PROCESSES} processes; ${EVENTS_PER_SEC} events/s × ${SECONDS} s per round; ${ROUNDS} hub/floor pairs`);

  const clientProcs: ChildProcess[] = [];
  for (let i = 0; i < CLIENT_PROCESSES; i++) {
    const c = fork(self, ['clients']);
    children.push(c);
    clientProcs.push(c);
  }

  // The real clients stay on the hub from the first to the last round and must get every hub event.
  const transports = [
    ...Array<HttpTransportType>(4).fill(HttpTransportType.WebSockets),
    ...Array<HttpTransportType>(3).fill(HttpTransportType.ServerSentEvents),
    ...Array<HttpTransportType>(3).fill(HttpTransportType.LongPolling),
  ];
  const realHist = new Histogram();
  let listening = false;
  const real: { conn: HubConnection; seen: Uint8Array; received: number }[] = [];
  for (const transport of transports.slice(0, REAL_CLIENTS)) {
    const conn = new HubConnectionBuilder().withUrl(`http://127.0.0.1:${ports.hub}${HUB_PATH}`, { transport }).configureLogging(LogLevel.None).build();
    const r = { conn, seen: new Uint8Array(TOTAL_EVENTS), received: 0 };
    conn.on('SvcEvent', (e: SvcEvent) => {
      if (!listening) return;
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

  let peakRss = 0;
  let realReceived = 0;
  let hubRounds = 0;
  const rounds: RoundResult[] = [];
  const all = (m: Msg) => clientProcs.forEach((c) => c.send(m));
  const minReceived = async () => {
    all({ t: 'progress' });
    const mins = await Promise.all(clientProcs.map((c) => waitMsg(c, 'progressIs')));
    return Math.min(...mins.map((m) => m.minReceived));
  };

  for (let round = 0; round < ROUNDS * 2; round++) {
    // pairs in the order hub-floor, floor-hub, hub-floor…: whatever the first round of a process pays (compiling) falls on either side
    const pair = Math.floor(round / 2);
    const side: Side = (round % 2 === 0) === (pair % 2 === 0) ? 'hub' : 'floor';
    const t0 = performance.now();
    await Promise.all(
      clientProcs.map((c, i) => {
        c.send({ t: 'connect', side, port: side === 'hub' ? ports.hub : ports.floor, receiving: split(RECEIVING, CLIENT_PROCESSES, i), idle: split(IDLE, CLIENT_PROCESSES, i) } satisfies Msg);
        return waitMsg(c, 'connected');
      }),
    );
    for (const r of real) {
      r.seen.fill(0);
      r.received = 0;
    }
    listening = side === 'hub';
    const connected = await rss();
    // One sample in flight at a time: a busy server answers late, and unanswered requests would pile up listeners.
    let sampling = false;
    const sampler = setInterval(() => {
      if (side !== 'hub' || sampling) return;
      sampling = true;
      void rss().then((r) => {
        peakRss = Math.max(peakRss, r.rssMb);
        sampling = false;
      });
    }, 250);
    if (side === 'hub') peakRss = Math.max(peakRss, connected.rssMb);
    server.send({ t: 'emit', side } satisfies Msg);
    const emitted = await waitMsg(server, 'emitted');
    const afterEmit = await rss();
    // Let deliveries drain (a lost event stays lost; this only waits for stragglers).
    const emittedAt = performance.now();
    while (performance.now() - emittedAt < DRAIN_MS && ((side === 'hub' && real.some((r) => r.received < TOTAL_EVENTS)) || (await minReceived()) < TOTAL_EVENTS)) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const drainedMs = performance.now() - emittedAt;
    clearInterval(sampler);
    listening = false;
    const hist = new Histogram();
    let received = 0;
    let clientCpuMs = 0;
    all({ t: 'report' });
    for (const c of clientProcs) {
      const rep = await waitMsg(c, 'histogram');
      hist.add(rep.buckets);
      received += rep.received;
      clientCpuMs += rep.cpuMs;
    }
    let lost = TOTAL_EVENTS * TOTAL_CLIENTS - received;
    if (side === 'hub') {
      hubRounds++;
      const got = real.reduce((n, r) => n + r.received, 0);
      realReceived += got;
      lost += TOTAL_EVENTS * real.length - got;
    }
    all({ t: 'disconnect' });
    await Promise.all(clientProcs.map((c) => waitMsg(c, 'disconnected')));
    const result: RoundResult = { side, p50: hist.percentile(0.5), p99: hist.percentile(0.99), lost, serverCpuMs: afterEmit.cpuMs - connected.cpuMs, clientCpuMs, drainedMs };
    rounds.push(result);
    console.log(
      `round ${round + 1} ${side.padEnd(5)}: p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms, lost ${lost}; ` +
        `${side === 'hub' ? connected.connections : connected.floorSockets} connections after ${(emittedAt - t0 - emitted.ms).toFixed(0)} ms, RSS ${connected.rssMb.toFixed(1)} MB; ` +
        `emitted in ${emitted.ms.toFixed(0)} ms, drained ${drainedMs.toFixed(0)} ms later; CPU server ${result.serverCpuMs.toFixed(0)} ms, clients ${clientCpuMs.toFixed(0)} ms; load ${loadavg()[0]!.toFixed(2)}`,
    );
  }
  for (const r of real) await r.conn.stop();
  clearTimeout(hardStop);
  kill();

  const hubs = rounds.filter((r) => r.side === 'hub');
  const floors = rounds.filter((r) => r.side === 'floor');
  const ratios = hubs.map((h, i) => h.p99 / floors[i]!.p99);
  const p99 = median(hubs.map((r) => r.p99));
  const floorP99 = median(floors.map((r) => r.p99));
  const p50 = median(hubs.map((r) => r.p50));
  const ratio = median(ratios);
  const lost = hubs.reduce((n, r) => n + r.lost, 0);
  const floorLost = floors.reduce((n, r) => n + r.lost, 0);
  console.log(`hub p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms; floor p50 ${median(floors.map((r) => r.p50)).toFixed(1)} ms, p99 ${floorP99.toFixed(1)} ms (medians of the rounds)`);
  console.log(`hub / floor p99 per pair: ${ratios.map((x) => x.toFixed(2)).join(', ')} → median ${ratio.toFixed(2)}`);
  console.log(`server CPU per round: hub ${hubs.map((r) => r.serverCpuMs.toFixed(0)).join(', ')} ms; floor ${floors.map((r) => r.serverCpuMs.toFixed(0)).join(', ')} ms`);
  console.log(`real @microsoft/signalr clients (hub rounds): p50 ${realHist.percentile(0.5).toFixed(1)} ms, p99 ${realHist.percentile(0.99).toFixed(1)} ms, received ${realReceived} of ${TOTAL_EVENTS * REAL_CLIENTS * hubRounds}`);
  console.log(`server RSS: idle ${idleRss.rssMb.toFixed(1)} MB, peak during hub rounds ${peakRss.toFixed(1)} MB; floor lost ${floorLost}`);
  console.log(
    `targets: hub p99 ≤ 1.5 × floor ${ratio <= 1.5 ? 'met' : 'MISSED'}; lost = 0 ${lost === 0 ? 'met' : 'MISSED'}; ` +
      `RSS < ${TOTAL_CLIENTS > 1_000 ? 500 : 300} MB ${peakRss < (TOTAL_CLIENTS > 1_000 ? 500 : 300) ? 'met' : 'MISSED'}`,
  );
  console.log(JSON.stringify({ bench: 'hub', clients: TOTAL_CLIENTS, p99Ms: r1(p99), floorP99Ms: r1(floorP99), ratio: Math.round(ratio * 100) / 100, lost, rssMb: r1(peakRss), p50Ms: r1(p50) }));
  process.exit(0);
}

const role = process.argv[2];
if (role === 'server') await runServer();
else if (role === 'clients') await runClients();
else await runParent();
