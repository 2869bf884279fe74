import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { aesSafeStorage } from '../fixtures/main/aesSafeStorage.js';
import { useConsoleSuite } from '../fixtures/main/consoleSuite.js';
import { startFullHost } from '../fixtures/main/fullHost.js';
import { AllEnvironmentsSummary } from '../../src/main/environments/AllEnvironmentsSummary.js';
import { IPC_CHANNEL_TABLE } from '../../src/main/ipc/ipcChannelTable.js';
import { buildTrayMenuTemplate } from '../../src/main/tray/trayMenuTemplate.js';
import { summaryHeadline } from '../../src/shared/environmentsSummary.js';
import { waitFor } from '../fixtures/waitFor.js';

const MIN = 60_000;

/** A port that accepts connections and never answers: a host that hangs. */
async function silentHost(): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => void sockets.add(socket));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/**
 * A loopback relay to `target` that the test can freeze: from then on it drops the connections it
 * carried and holds every new one without an answer (a host that hangs after the login).
 */
async function freezableRelay(target: string): Promise<{ baseUrl: string; freeze(): void; close(): Promise<void> }> {
  const { port } = new URL(target);
  const sockets = new Set<Socket>();
  let frozen = false;
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    if (frozen) return;
    const upstream = connect(Number(port), '127.0.0.1');
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    socket.pipe(upstream).pipe(socket);
    socket.on('error', () => upstream.destroy());
    upstream.on('error', () => socket.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    freeze() {
      frozen = true;
      for (const socket of sockets) socket.destroy();
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** A host the test closes itself: the suite's close after it does nothing. */
function closedOnce<H extends { close(): Promise<void> }>(host: H): H {
  let closing: Promise<void> | undefined;
  return { ...host, close: () => (closing ??= host.close()) };
}

/** The all-environments summary of the real main-process services against real monitoring hosts. */
describe('all environments at a glance (main): one IPC call, every environment in parallel', () => {
  const suite = useConsoleSuite({
    start: async (dir) => ({
      busy: await startFullHost(dir, { username: 'ops', password: 'busy-pw' }),
      calm: await startFullHost(dir, { username: 'ops', password: 'calm-pw' }),
      gone: closedOnce(await startFullHost(dir, { username: 'ops', password: 'gone-pw' })),
      hangs: await silentHost(),
    }),
    userData: 'ud',
    console: { safeStorage: aesSafeStorage('gnome_libsecret'), hub: { reconnectDelaysMs: [0, 100, 300], retryAfterFailureMs: 500 } },
    timeoutMs: 60_000,
  });
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    const { busy, calm, gone, hangs } = suite.hosts;
    const now = Date.now();
    busy.seedFailed(now - 10 * MIN);
    busy.seedFailed(now - 20 * MIN);
    busy.seedFailed(now - 3 * 60 * MIN);
    busy.seedFailed(now - 30 * 60 * MIN);
    busy.seedQueued(now - 7 * MIN);
    busy.seedQueued(now - 2 * MIN, 'mail');
    calm.halt(calm.seedSchedule('nightly-report'));
    calm.seedFailed(now - 5 * 60 * MIN);
    for (const [name, host, password] of [['Busy', busy, 'busy-pw'], ['Calm', calm, 'calm-pw'], ['Gone', gone, 'gone-pw']] as const) {
      ids[name] = (await suite.services.addEnvironment({ name, baseUrl: host.baseUrl, colour: '#2563eb', isProduction: name === 'Busy' })).id;
      await suite.services.requireSession(ids[name]!).loginWithPassword('ops', password, false);
    }
    ids.Idle = (await suite.services.addEnvironment({ name: 'Idle', baseUrl: busy.baseUrl, colour: '#2563eb', isProduction: false })).id;
    // Logged in, then the host goes away: its row says it is down, the others still answer.
    await gone.close();
    ids.Hangs = (await suite.services.addEnvironment({ name: 'Hangs', baseUrl: hangs.baseUrl, colour: '#2563eb', isProduction: false })).id;
  }, 60_000);

  it('answers each environment’s failures of the last hour and day, oldest waiting task and halted schedules; a host down or hanging is a row that says so', async () => {
    const services = suite.services;
    const started = Date.now();
    const summary = await IPC_CHANNEL_TABLE['environments.summary'].handle({ services, openExternal: async () => undefined });
    // The hanging host is cut off at the per-environment limit; it does not hold up the others.
    expect(Date.now() - started).toBeLessThan(15_000);
    const row = (name: string) => summary.rows.find((r) => r.name === name)!;
    expect(summary.rows.map((r) => r.name)).toEqual(['Busy', 'Calm', 'Gone', 'Idle', 'Hangs']);
    expect(row('Busy')).toMatchObject({ health: 'failing', isProduction: true, failedLastHour: 2, failedLastDay: 3, haltedSchedules: 0 });
    expect(row('Busy').failedAtLeast).toBeUndefined();
    // The oldest Queued task has waited about 7 minutes (by the host's clock).
    expect(row('Busy').oldestWaitingMs).toBeGreaterThanOrEqual(7 * MIN - 1_000);
    expect(row('Busy').oldestWaitingMs).toBeLessThan(9 * MIN);
    expect(row('Calm')).toMatchObject({ health: 'failing', failedLastHour: 0, failedLastDay: 1, haltedSchedules: 1 });
    expect(row('Gone')).toMatchObject({ health: 'down' });
    expect(row('Gone').error).toBeTruthy();
    expect(row('Gone').failedLastHour).toBeUndefined();
    // Never logged in: nothing can be read, and the row says to log in (no request was made).
    expect(row('Idle')).toMatchObject({ health: 'login' });
    // A host that accepts connections and never answers: down (its session never started, or the summary's limit cut it off).
    expect(row('Hangs').health).toBe('down');
    // The tray's header line counts the same rows.
    expect(summaryHeadline(summary)).toBe('2 failing · 2 down · 1 need a login of 5 environments');
    expect(services.summary.latest()).toBe(summary);
    const menu = buildTrayMenuTemplate(services.environments(), 0, summaryHeadline(summary));
    expect(menu[2]).toEqual({ kind: 'label', label: summaryHeadline(summary) });
  }, 30_000);

  it('a second ask while one gathers gets the same answer (one gathering at a time)', async () => {
    const [a, b] = await Promise.all([suite.services.summary.refresh(), suite.services.summary.refresh()]);
    expect(a).toBe(b);
  }, 30_000);

  it('an environment that stops answering after its login is cut off at 5 s; the others answer meanwhile', async () => {
    const relay = await freezableRelay(suite.hosts.calm.baseUrl);
    const id = (await suite.services.addEnvironment({ name: 'Frozen', baseUrl: relay.baseUrl, colour: '#2563eb', isProduction: false })).id;
    try {
      await suite.services.requireSession(id).loginWithPassword('ops', 'calm-pw', false);
      await suite.services.hub.whenState(id, 'connected', 15_000);
      // The back-fill a connection starts has finished (one cut off would reject with nobody listening).
      await suite.services.backfill(id);
      relay.freeze();
      // The console has noticed the dropped connections (its live connection is down).
      await waitFor(() => suite.services.hub.state(id).state !== 'connected', 10_000, 'the live connection to drop');
      const started = Date.now();
      const summary = await suite.services.summary.refresh();
      const took = Date.now() - started;
      expect(took).toBeGreaterThanOrEqual(4_900);
      expect(took).toBeLessThan(12_000);
      expect(summary.rows.find((r) => r.id === id)).toMatchObject({ health: 'down', error: 'No answer within 5 s' });
      expect(summary.rows.find((r) => r.name === 'Busy')).toMatchObject({ health: 'failing', failedLastHour: 2 });
    } finally {
      // The environment stays (removing it waits on its hung host); the relay closes, the suite's dispose bounds the rest.
      await relay.close();
    }
  }, 40_000);
});

describe('the tray keeps its line current with the page closed', () => {
  it('gathers first after the sessions had time to start, then on its interval, until stopped', async () => {
    const rows: string[] = [];
    const summary = new AllEnvironmentsSummary({ environments: () => [], call: () => Promise.reject(new Error('no call expected')) });
    summary.onSummary((s) => rows.push(s.at));
    summary.refreshEvery(40, 120);
    await new Promise((r) => setTimeout(r, 60));
    expect(rows).toHaveLength(0);
    await waitFor(() => rows.length >= 3, 5_000, 'three gatherings');
    summary.stop();
    const after = rows.length;
    await new Promise((r) => setTimeout(r, 150));
    expect(rows.length).toBeLessThanOrEqual(after + 1);
  });
});
