// The all-environments page with many environments: `npx tsx bench/desktopAllEnvironments.ts`.
// Starts HOSTS real monitoring hosts on loopback (API + hub over SQLite, each seeded with failures
// of the last day and a waiting task), adds ENVIRONMENTS environments spread over them (plus one
// whose host is down), logs each in, then asks for the summary as the page does (the
// `environments.summary` IPC handler). Figures: the first summary after start (the page's first
// paint waits for it), then the median and worst of REFRESHES refreshes, and the bytes one answer
// carries over IPC (its JSON, what the preload's structured clone carries). Options:
// --environments N --hosts N --refreshes N. Last line: one JSON object.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ConsoleServices } from '../src/main/ConsoleServices.js';
import { IPC_CHANNEL_TABLE } from '../src/main/ipc/ipcChannelTable.js';
import { startFullHost, type FullHost } from '../test/fixtures/main/fullHost.js';

const { values } = parseArgs({ options: { environments: { type: 'string', default: '50' }, hosts: { type: 'string', default: '5' }, refreshes: { type: 'string', default: '10' } } });
const ENVIRONMENTS = Number(values.environments);
const HOSTS = Number(values.hosts);
const REFRESHES = Number(values.refreshes);

const dir = await mkdtemp(join(tmpdir(), 'svc-desktop-all-'));
const hosts: FullHost[] = [];
for (let i = 0; i < HOSTS; i++) {
  const host = await startFullHost(dir, { username: 'ops', password: 'pw', loginRateLimit: false });
  const now = Date.now();
  for (let f = 0; f < 150; f++) host.seedFailed(now - f * 9 * 60_000, `Billing.Type${f % 7}`);
  host.seedQueued(now - (i + 1) * 60_000);
  hosts.push(host);
}
const services = await ConsoleServices.create({ userDataDir: join(dir, 'ud'), notifications: { show: () => undefined }, badge: { setUnreadCount: () => undefined } });
for (let i = 0; i < ENVIRONMENTS; i++) {
  const env = await services.addEnvironment({ name: `Env ${String(i + 1).padStart(2, '0')}`, baseUrl: hosts[i % HOSTS]!.baseUrl, colour: '#2563eb', isProduction: i % 10 === 0 });
  await services.requireSession(env.id).loginWithPassword('ops', 'pw', false);
}
await services.addEnvironment({ name: 'Down', baseUrl: 'http://127.0.0.1:9', colour: '#dc2626', isProduction: false });

const context = { services, openExternal: async () => undefined };
const ask = async () => {
  const started = performance.now();
  const value = await IPC_CHANNEL_TABLE['environments.summary'].handle(context);
  return { ms: performance.now() - started, bytes: Buffer.byteLength(JSON.stringify({ ok: true, value })), rows: value.rows.length, value };
};
const first = await ask();
const times: number[] = [];
let bytes = 0;
for (let i = 0; i < REFRESHES; i++) {
  const r = await ask();
  times.push(r.ms);
  bytes = r.bytes;
}
times.sort((a, b) => a - b);
const health = Object.fromEntries(['ok', 'failing', 'down', 'login'].map((h) => [h, first.value.rows.filter((r) => r.health === h).length]));
await services.dispose();
await Promise.all(hosts.map((h) => h.close()));
await rm(dir, { recursive: true, force: true });
const result = {
  environments: first.rows,
  hosts: HOSTS,
  firstSummaryMs: Math.round(first.ms),
  refreshMedianMs: Math.round(times[Math.floor(times.length / 2)]!),
  refreshWorstMs: Math.round(times.at(-1)!),
  ipcBytesPerRefresh: bytes,
  ipcBytesPerEnvironment: Math.round(bytes / first.rows),
  health,
};
console.log(`${result.environments} environments on ${HOSTS} hosts: first summary ${result.firstSummaryMs} ms, refresh median ${result.refreshMedianMs} ms (worst ${result.refreshWorstMs} ms), ${bytes} bytes per refresh`);
console.log(JSON.stringify(result));
