// A failure storm in the desktop console's main process: `npm run bench:desktop-storm`.
// Loads the real main-process services, tray controller and IPC wiring against the recording
// electron stand-in (test/fixtures/main/recordingElectron.ts), with an inbox already holding
// EXISTING failures from an earlier run, then feeds FAILURES Failed events spread evenly over
// SECONDS seconds, as an environment's hub would deliver them. A stand-in renderer does what
// the desktop renderer does with each inbox event: apply the changes it carries, or (when an
// event carries none, or asks for a reset) fetch the whole inbox over IPC.
// Figures: main-process CPU (process.cpuUsage around the storm, plus 1 s for the last coalesced
// updates), IPC bytes main → renderer (events + inbox lists fetched, as JSON), IPC messages,
// tray menu rebuilds and icon changes. Options: --failures N --seconds S --existing N.
// Last line: one JSON object.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { SvcEvent } from '../server/src/contracts/events.js';
import { createRecordingElectron, useAsElectronModule } from '../test/fixtures/main/recordingElectron.js';

const { values } = parseArgs({ options: { failures: { type: 'string', default: '1000' }, seconds: { type: 'string', default: '10' }, existing: { type: 'string', default: '4000' } } });
const FAILURES = Number(values.failures);
const SECONDS = Number(values.seconds);
const EXISTING = Number(values.existing);

const dir = await mkdtemp(join(tmpdir(), 'svc-desktop-storm-'));
const rec = createRecordingElectron(dir, process.cwd());
useAsElectronModule(rec.electron);

const { ConsoleServices } = await import('../src/main/ConsoleServices.js');
const { TrayController } = await import('../src/main/electron/trayAndBadge.js');
const { wireIpc } = await import('../src/main/electron/ipcWiring.js');

const ENV = 'storm';
const at = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 1_000).toISOString();
const earlier = Array.from({ length: EXISTING }, (_, i) => ({
  id: `f${EXISTING - i}`,
  environmentId: ENV,
  environmentName: 'Storm',
  isProduction: true,
  taskId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
  taskType: 'Billing.Invoices.CreateInvoice',
  kind: 'Failed',
  message: 'The invoice service answered 503 Service Unavailable after 3 attempts',
  eventDateUtc: at(EXISTING - i),
  burstId: 'b-earlier',
  read: true,
}));
await writeFile(join(dir, 'environments.json'), JSON.stringify({ version: 1, environments: [{ id: ENV, name: 'Storm', baseUrl: 'http://127.0.0.1:9', colour: '#dc2626', isProduction: true }] }));
await writeFile(join(dir, 'inbox.json'), JSON.stringify({ version: 1, items: earlier, seenUntil: {} }));

let tray: InstanceType<typeof TrayController> | undefined;
const services = await ConsoleServices.create({ userDataDir: dir, notifications: { show: () => undefined }, badge: { setUnreadCount: (n) => tray?.setUnreadCount(n) } });
tray = new TrayController({ normal: 'tray.png', unread: 'tray-unread.png', warning: 'tray-warning.png' }, { show: () => undefined, openEnvironment: () => undefined, openInbox: () => undefined, quit: () => undefined }, () => undefined);
const fakeTray = rec.trays[0]!;
let menuRebuilds = 0;
const setContextMenu = fakeTray.setContextMenu.bind(fakeTray);
fakeTray.setContextMenu = (m: unknown) => (menuRebuilds++, setContextMenu(m));

// The stand-in renderer: counts what crosses IPC, fetches the inbox when an event asks for it.
const appFrame = { senderFrame: { url: 'app://console/', parent: null } };
const ipc = { bytes: 0, messages: 0, listFetches: 0 };
const fetchInbox = async () => {
  const answer = await rec.ipcHandlers.get('svc-monitor:inbox.list')!(appFrame, {});
  ipc.bytes += JSON.stringify(answer).length;
  ipc.messages++;
  ipc.listFetches++;
};
const window = {
  isDestroyed: () => false,
  webContents: {
    send: (_channel: string, event: { type: string; changes?: Array<{ kind: string }> }) => {
      ipc.bytes += JSON.stringify(event).length;
      ipc.messages++;
      if (event.type === 'inbox' && (!event.changes || event.changes.some((c) => c.kind === 'reset'))) void fetchInbox();
    },
  },
};
wireIpc(services, ['app://console'], async () => undefined, () => window as never);

/** An environment's hub delivering an event (older builds have no public entry for it). */
const receive = (event: SvcEvent) => {
  const s = services as unknown as { receive?: (id: string, e: SvcEvent) => void; hub: { options: { onEvent: (id: string, e: SvcEvent) => void } } };
  if (s.receive) s.receive(ENV, event);
  else s.hub.options.onEvent(ENV, event);
};

await new Promise((r) => setTimeout(r, 500));
Object.assign(ipc, { bytes: 0, messages: 0, listFetches: 0 });
menuRebuilds = 0;
const imagesBefore = fakeTray.images.length;
const cpu0 = process.cpuUsage();
const started = performance.now();
for (let i = 0; i < FAILURES; i++) {
  const due = started + (i * SECONDS * 1_000) / FAILURES;
  const wait = due - performance.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  receive({
    kind: 'Failed',
    taskId: `10000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    eventDateUtc: at(EXISTING + 1 + i),
    severity: 'Error',
    taskType: 'Billing.Invoices.CreateInvoice',
    queueName: 'billing',
    message: 'The invoice service answered 503 Service Unavailable after 3 attempts',
  });
}
await new Promise((r) => setTimeout(r, 1_000));
const cpu = process.cpuUsage(cpu0);
const result = {
  failures: FAILURES,
  seconds: SECONDS,
  existingInInbox: EXISTING,
  mainCpuMs: Math.round((cpu.user + cpu.system) / 1_000),
  ipcBytes: ipc.bytes,
  ipcMessages: ipc.messages,
  inboxListFetches: ipc.listFetches,
  trayMenuRebuilds: menuRebuilds,
  trayImageChanges: fakeTray.images.length - imagesBefore,
};
console.log(`main-process CPU during the storm: ${result.mainCpuMs} ms`);
console.log(`IPC main → renderer: ${(result.ipcBytes / 1_048_576).toFixed(2)} MiB in ${result.ipcMessages} messages (${result.inboxListFetches} whole-inbox fetches)`);
console.log(`tray: ${result.trayMenuRebuilds} menu rebuilds, ${result.trayImageChanges} icon changes`);
console.log(JSON.stringify(result));
tray.destroy();
await services.dispose();
await rm(dir, { recursive: true, force: true });
