import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { MenuItemConstructorOptions } from 'electron';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { decideClose, defaultCloseToTray } from '../../src/main/window/closeBehaviour.js';
import { waitFor } from '../fixtures/waitFor.js';
import { createRecordingElectron } from '../fixtures/main/recordingElectron.js';
import { createTempDir } from '../fixtures/main/tempDir.js';

type Recording = ReturnType<typeof createRecordingElectron>;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

/** Loads src/main/index.ts afresh against a new recording electron and makes the app ready. */
async function launch(options: { packaged?: boolean; files?: Record<string, string>; prepare?: (rec: Recording) => void } = {}) {
  const { dir, cleanup } = await createTempDir('svc-first-launch-');
  const userData = join(dir, 'user-data');
  await mkdir(userData);
  for (const [name, text] of Object.entries(options.files ?? {})) await writeFile(join(userData, name), text);
  const rec = createRecordingElectron(userData, process.cwd(), { packaged: options.packaged ?? false });
  options.prepare?.(rec);
  vi.resetModules();
  vi.doMock('electron', () => rec.electron);
  await import('../../src/main/index.js');
  rec.emitReady();
  cleanups.push(async () => {
    rec.emitBeforeQuit();
    await new Promise((r) => setTimeout(r, 50));
    await cleanup();
  });
  return { rec, userData };
}

function menuItems(menu: unknown): MenuItemConstructorOptions[] {
  const out: MenuItemConstructorOptions[] = [];
  const walk = (items: MenuItemConstructorOptions[]) => {
    for (const i of items) {
      out.push(i);
      if (Array.isArray(i.submenu)) walk(i.submenu);
    }
  };
  walk(menu as MenuItemConstructorOptions[]);
  return out;
}

const twoEnvironments = JSON.stringify({
  version: 1,
  environments: [
    { id: 'stg', name: 'Staging', baseUrl: 'http://127.0.0.1:9', colour: '#2563eb', isProduction: false },
    { id: 'prd', name: 'Production', baseUrl: 'http://127.0.0.1:9/prod', colour: '#dc2626', isProduction: true },
  ],
});

describe('first launch of the desktop console (src/main/index.ts against a recording electron)', () => {
  it('packaged: no developer tools or reload, Ctrl/Cmd+1…9 open environments, a log file in user data', async () => {
    const { rec, userData } = await launch({ packaged: true, files: { 'environments.json': twoEnvironments } });
    await waitFor(() => rec.windows[0]?.loadedUrl !== undefined, 10_000, 'the window', 25);
    expect(rec.windows[0]!.options['webPreferences']).toMatchObject({ devTools: false });
    await waitFor(() => menuItems(rec.menus.at(-1)).some((i) => i.accelerator === 'CmdOrCtrl+2'), 10_000, 'the menu with both environments', 25);
    const items = menuItems(rec.menus.at(-1));
    expect(items.some((i) => i.role === 'reload' || i.role === 'forceReload' || i.role === 'toggleDevTools')).toBe(false);
    expect(items.filter((i) => i.accelerator?.startsWith('CmdOrCtrl+') && /\+\d$/.test(i.accelerator)).map((i) => [i.label, i.accelerator])).toEqual([
      ['Staging', 'CmdOrCtrl+1'],
      ['Production (production)', 'CmdOrCtrl+2'],
    ]);
    expect(items.some((i) => i.role === 'copy') && items.some((i) => i.role === 'paste')).toBe(true);
    (items.find((i) => i.accelerator === 'CmdOrCtrl+2')!.click as () => void)();
    const wc = rec.windows[0]!.webContents;
    expect(wc.sent.some(([, e]) => (e as { type: string; target?: { environmentId?: string } }).type === 'open' && (e as { target: { environmentId: string } }).target.environmentId === 'prd')).toBe(true);
    const logText = await readFile(join(userData, 'logs/main.log'), 'utf8');
    expect(logText).toMatch(/INFO Svc Monitor .* starting \(.*packaged\)/);
  });

  it('development: reload and developer tools stay available', async () => {
    const { rec } = await launch({ packaged: false });
    await waitFor(() => rec.menus.length > 0 && rec.windows[0]?.loadedUrl !== undefined, 10_000, 'the menu', 25);
    expect(rec.windows[0]!.options['webPreferences']).toMatchObject({ devTools: true });
    expect(menuItems(rec.menus.at(-1)).some((i) => i.role === 'toggleDevTools')).toBe(true);
  });

  it('closing the window quits where no tray can be relied on, keeps running in the tray once chosen, and activate shows it again', async () => {
    const { rec, userData } = await launch();
    await waitFor(() => rec.windows[0]?.loadedUrl !== undefined && rec.menus.length > 0, 10_000, 'the window', 25);
    const win = rec.windows[0]!;
    const checkbox = () => menuItems(rec.menus.at(-1)).find((i) => i.type === 'checkbox')!;
    expect(checkbox().checked).toBe(process.platform !== 'linux');
    // The user chooses to keep it in the tray (menu checkbox): saved, and close now hides.
    (checkbox().click as (item: { checked: boolean }) => void)({ checked: true });
    await waitFor(() => checkbox().checked === true, 10_000, 'the saved preference', 25);
    expect(JSON.parse(await readFile(join(userData, 'preferences.json'), 'utf8'))).toEqual({ closeToTray: true });
    win.show();
    let prevented = 0;
    win.emit('close', { preventDefault: () => prevented++ });
    expect(prevented).toBe(1);
    expect(win.isVisible()).toBe(false);
    expect(rec.calls).not.toContain('app.quit');
    rec.appEmitter.emit('activate');
    expect(win.isVisible()).toBe(true);
    // Without the tray choice (the Linux default), closing the window quits the app.
    (checkbox().click as (item: { checked: boolean }) => void)({ checked: false });
    await waitFor(() => checkbox().checked === false, 10_000, 'the saved preference', 25);
    prevented = 0;
    win.emit('close', { preventDefault: () => prevented++ });
    expect(prevented).toBe(process.platform === 'darwin' ? 1 : 0);
    expect(rec.calls.includes('app.quit')).toBe(process.platform !== 'darwin');
  });

  it('an environment file that no longer matches the schema is moved aside, the user is told, and the app starts', async () => {
    const broken = JSON.stringify({ version: 1, environments: [{ id: 'x', name: 'Old', baseUrl: 'http://h', colour: 'red', isProduction: false }] });
    const { rec, userData } = await launch({ files: { 'environments.json': broken } });
    await waitFor(() => rec.dialogs.length > 0, 10_000, 'the warning', 25);
    const moved = (await readdir(userData)).find((f) => f.startsWith('environments.json.bad-'));
    expect(moved).toBeDefined();
    expect(await readFile(join(userData, moved!), 'utf8')).toBe(broken);
    expect(rec.dialogs[0]).toMatchObject({ kind: 'message', title: 'Environment list reset' });
    expect(rec.dialogs[0]!.text).toContain(join(userData, moved!));
    expect(rec.dialogs[0]!.text).toMatch(/colour/);
    expect(rec.windows).toHaveLength(1);
    const list = (await rec.ipcHandlers.get('svc-monitor:environments.list')!({ senderFrame: { url: 'app://console/', parent: null } })) as { ok: boolean; value: unknown[] };
    expect(list).toEqual({ ok: true, value: [] });
    expect(rec.calls).not.toContain('app.exit:1');
  });

  it('a start that fails shows a dialog naming the log file, frees the single-instance lock and quits', async () => {
    const { rec, userData } = await launch({
      prepare: (r) => {
        r.electron.screen.getAllDisplays = () => {
          throw new Error('no display available');
        };
      },
    });
    await waitFor(() => rec.dialogs.length > 0, 10_000, 'the error dialog', 25);
    const logPath = join(userData, 'logs', 'main.log');
    expect(rec.dialogs[0]).toEqual({ kind: 'error', title: 'Svc Monitor could not start', text: `no display available\n\nDetails are in the log file:\n${logPath}` });
    expect(rec.calls).toContain('app.releaseSingleInstanceLock');
    expect(rec.calls).toContain('app.exit:1');
    expect(await readFile(logPath, 'utf8')).toMatch(/ERROR Svc Monitor could not start: no display available/);
  });
});

/** An inbox file of an earlier run: `unread` unread failures and one read, in environment "stg". */
function storedInbox(unread: number): string {
  const item = (i: number, read: boolean) => ({
    id: `f${i}`,
    environmentId: 'stg',
    environmentName: 'Staging',
    isProduction: false,
    taskId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    taskType: 'Billing.Invoice',
    kind: 'Failed',
    message: `boom ${i}`,
    eventDateUtc: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    burstId: 'b-earlier-1',
    read,
  });
  return JSON.stringify({ version: 1, items: [...Array.from({ length: unread }, (_, i) => item(i + 1, false)), item(unread + 1, true)], seenUntil: {} });
}

describe('a restart and a quit (src/main/index.ts against a recording electron)', () => {
  it('after a restart the tray and the dock badge show the unread failures kept from the last run, before any new one arrives', async () => {
    const { rec } = await launch({ files: { 'environments.json': twoEnvironments, 'inbox.json': storedInbox(3) } });
    await waitFor(() => rec.windows[0]?.loadedUrl !== undefined && rec.trays.length === 1, 10_000, 'the window', 25);
    await waitFor(() => rec.trays[0]!.tooltip.startsWith('Svc Monitor — 3 unread failures'), 10_000, 'the tray tooltip with 3 unread', 25);
    expect(rec.calls).toContain('badge:3');
    expect(rec.trays[0]!.images.at(-1)).toEqual({ path: join(process.cwd(), 'build/tray/tray-unread.png') });
  });

  it('the window shows first, saying it is unlocking the keychain, while a slow keychain answers; the page\'s calls wait for it', async () => {
    let answer: () => void = () => undefined;
    const unlocked = new Promise<void>((r) => (answer = r));
    const slowKeychain = {
      getPassword: async () => (await unlocked, null),
      setPassword: async () => void (await unlocked),
      deletePassword: async () => (await unlocked, false),
      findCredentials: async () => (await unlocked, []),
    };
    vi.doMock('keytar', () => ({ default: slowKeychain }));
    cleanups.push(async () => void vi.doUnmock('keytar'));
    const { rec } = await launch({ files: { 'environments.json': twoEnvironments } });
    await waitFor(() => rec.windows[0]?.shownAt !== undefined, 10_000, 'the window shown', 25);
    // The desktop page says what it waits for until the shell mounts (from source the app serves the web page).
    expect(await readFile('src/renderer/desktop/index.html', 'utf8')).toContain('<div id="app"><p class="desk-starting" data-testid="starting">Starting Svc Monitor… unlocking the keychain…</p></div>');
    const list = rec.ipcHandlers.get('svc-monitor:environments.list')!;
    let listed: unknown;
    void Promise.resolve(list({ senderFrame: { url: 'app://console/', parent: null } })).then((v) => (listed = v));
    await new Promise((r) => setTimeout(r, 200));
    expect(listed).toBeUndefined();
    answer();
    await waitFor(() => listed !== undefined, 10_000, 'the environments once unlocked', 25);
    expect((listed as { ok: boolean; value: Array<{ name: string }> }).value.map((e) => e.name)).toEqual(['Staging', 'Production']);
    const vault = (await rec.ipcHandlers.get('svc-monitor:vault.status')!({ senderFrame: { url: 'app://console/', parent: null } })) as { value: { storage: string } };
    expect(vault.value.storage).toBe('keychain');
  });

  it('a deep link that comes while the renderer starts is kept for it: the page asks once it listens', async () => {
    const { rec } = await launch({ files: { 'environments.json': twoEnvironments } });
    await waitFor(() => rec.windows[0]?.loadedUrl !== undefined && rec.trays.length === 1, 10_000, 'the window and the services', 25);
    const ready = rec.ipcHandlers.get('svc-monitor:window.ready')!;
    const appFrame = { senderFrame: { url: 'app://console/', parent: null } };
    rec.appEmitter.emit('second-instance', {}, ['svc-monitor', 'svc-monitor://Production/tasks/7d3c2a1e-0000-4000-8000-000000000001']);
    // The recording dialog answers Open.
    await waitFor(() => rec.dialogs.some((d) => d.title === 'Open a link'), 10_000, 'the question', 25);
    expect(await waitFor(async () => ((await ready(appFrame)) as { value: unknown }).value ?? undefined, 10_000, 'the opened link', 25)).toEqual({ kind: 'task', environmentId: 'prd', taskId: '7d3c2a1e-0000-4000-8000-000000000001' });
    // Taken once: a later start of the page (a reload) does not open it again.
    expect(await ready(appFrame)).toEqual({ ok: true, value: null });
  });

  it('a link from outside (any web page) switches environment only once the user chose Open in a box naming it', async () => {
    const { rec } = await launch({ files: { 'environments.json': twoEnvironments } });
    await waitFor(() => rec.windows[0]?.loadedUrl !== undefined && rec.trays.length === 1, 10_000, 'the window and the services', 25);
    const asked: Array<{ message: string; buttons?: string[] }> = [];
    rec.electron.dialog.showMessageBox = async (_w: unknown, o: { title?: string; message: string; detail?: string; buttons?: string[] }) => {
      asked.push(o);
      return { response: 1 }; // Cancel
    };
    rec.appEmitter.emit('open-url', { preventDefault: () => undefined }, 'svc-monitor://Production/tasks/7d3c2a1e-0000-4000-8000-000000000002');
    await waitFor(() => asked.length === 1, 10_000, 'the question', 25);
    expect(asked[0]).toMatchObject({ message: 'Open task 7d3c2a1e-0000-4000-8000-000000000002 in Production (PRODUCTION)?', buttons: ['Open', 'Cancel'] });
    await new Promise((r) => setTimeout(r, 100));
    const opens = rec.windows[0]!.webContents.sent.filter(([, e]) => (e as { type: string }).type === 'open');
    expect(opens).toEqual([]);
    expect(await rec.ipcHandlers.get('svc-monitor:window.ready')!({ senderFrame: { url: 'app://console/', parent: null } })).toEqual({ ok: true, value: null });
  });

  it('Quit waits until the inbox\'s delayed write is on disk, then quits', async () => {
    const { rec, userData } = await launch({ files: { 'environments.json': twoEnvironments, 'inbox.json': storedInbox(2) } });
    await waitFor(() => rec.windows[0]?.loadedUrl !== undefined, 10_000, 'the window', 25);
    const markRead = rec.ipcHandlers.get('svc-monitor:inbox.markRead')!;
    expect(await markRead({ senderFrame: { url: 'app://console/', parent: null } }, { ids: ['f1'] })).toEqual({ ok: true, value: 1 });
    // The write is delayed (several changes make one); Quit comes right after the change.
    const held = rec.emitBeforeQuit();
    expect(held).toBe(true);
    expect(rec.calls).not.toContain('app.quit');
    await waitFor(() => rec.calls.includes('app.quit'), 10_000, 'the quit once the services are stopped', 25);
    const saved = JSON.parse(await readFile(join(userData, 'inbox.json'), 'utf8')) as { items: Array<{ id: string; read: boolean }> };
    expect(saved.items.find((i) => i.id === 'f1')?.read).toBe(true);
    // The second before-quit (from that app.quit) goes through.
    expect(rec.emitBeforeQuit()).toBe(false);
  });

  it('Windows logoff (the window\'s session-end, no before-quit) runs the same stop: the inbox\'s delayed write reaches the disk', async () => {
    const { rec, userData } = await launch({ files: { 'environments.json': twoEnvironments, 'inbox.json': storedInbox(2) } });
    await waitFor(() => rec.windows[0]?.loadedUrl !== undefined && rec.trays.length === 1, 10_000, 'the window', 25);
    const markRead = rec.ipcHandlers.get('svc-monitor:inbox.markRead')!;
    expect(await markRead({ senderFrame: { url: 'app://console/', parent: null } }, { ids: ['f2'] })).toEqual({ ok: true, value: 1 });
    rec.windows[0]!.emit('session-end', {});
    const readOnDisk = async () => {
      const saved = JSON.parse(await readFile(join(userData, 'inbox.json'), 'utf8')) as { items: Array<{ id: string; read: boolean }> };
      return saved.items.find((i) => i.id === 'f2')?.read === true;
    };
    // Well before the inbox's own delayed write would land, and the log says why it stopped.
    await waitFor(async () => await readOnDisk(), 10_000, 'the inbox written at session end', 25);
    expect(await readFile(join(userData, 'logs/main.log'), 'utf8')).toMatch(/session is ending/);
  });
});

describe('Windows identity and native notifications', () => {
  it('on Windows the app sets its AppUserModelID (the appId electron-builder installs it under) at start', async () => {
    const platform = Object.getOwnPropertyDescriptor(process, 'platform')!;
    Object.defineProperty(process, 'platform', { ...platform, value: 'win32' });
    let rec: Recording;
    try {
      ({ rec } = await launch());
    } finally {
      Object.defineProperty(process, 'platform', platform);
    }
    const appId = /^appId:\s*(\S+)$/m.exec(await readFile('build/electron-builder.yml', 'utf8'))![1];
    expect(rec.calls).toContain(`setAppUserModelId:${appId}`);
    // Elsewhere there is no such call.
    const { rec: linux } = await launch({ prepare: () => expect(process.platform).not.toBe('win32') });
    expect(linux.calls.some((c) => c.startsWith('setAppUserModelId'))).toBe(false);
  });

  it('keeps every shown notification referenced until it is clicked, closed or fails (a collected one loses its click)', async () => {
    const rec = createRecordingElectron('/nowhere', process.cwd());
    vi.resetModules();
    vi.doMock('electron', () => rec.electron);
    const { createNativeNotificationSink } = await import('../../src/main/electron/nativeNotifications.js');
    const opened: unknown[] = [];
    const sink = createNativeNotificationSink((target) => opened.push(target));
    const show = (taskId: string) =>
      sink.show({ environmentId: 'prd', burstId: taskId, isProduction: true, count: 1, title: `Task ${taskId} failed`, body: 'boom', target: { kind: 'task', environmentId: 'prd', taskId } });
    show('a');
    show('b');
    expect(rec.notifications.map((n) => [n.title, n.urgency])).toEqual([
      ['Task a failed', 'critical'],
      ['Task b failed', 'critical'],
    ]);
    expect(sink.showing.size).toBe(2);
    rec.notifications[0]!.close();
    expect(sink.showing.size).toBe(1);
    rec.notifications[1]!.click();
    expect(sink.showing.size).toBe(0);
    expect(opened).toEqual([{ kind: 'task', environmentId: 'prd', taskId: 'b' }]);
  });
});

describe('Help menu, crash reporting and a crashed or hung window', () => {
  it('Help: About shows the versions and the update state, Open logs folder opens it, Copy diagnostics copies a report, Save support bundle shows it and saves it; crash dumps stay local', async () => {
    const { rec, userData } = await launch({ files: { 'environments.json': twoEnvironments } });
    await waitFor(() => rec.windows[0]?.loadedUrl !== undefined && rec.trays.length === 1, 10_000, 'the window and the services', 25);
    expect(rec.calls).toContain('crashReporter.start:{"uploadToServer":false}');
    const help = (menuItems(rec.menus.at(-1)).find((i) => i.role === 'help')!.submenu as MenuItemConstructorOptions[]).filter((i) => i.label);
    const click = (label: RegExp) => (help.find((i) => label.test(i.label!))!.click as () => void)();
    expect(help.map((i) => i.label)).toEqual(
      process.platform === 'darwin' ? ['Check for Updates…', 'Open Logs Folder', 'Copy Diagnostics', 'Save Support Bundle…'] : ['About Svc Monitor', 'Check for updates…', 'Open logs folder', 'Copy diagnostics', 'Save support bundle…'],
    );
    if (process.platform !== 'darwin') {
      click(/^About/);
      await waitFor(() => rec.dialogs.some((d) => d.title === 'About Svc Monitor'), 10_000, 'the About box', 25);
      expect(rec.dialogs.find((d) => d.title === 'About Svc Monitor')!.text).toMatch(/^Svc Monitor\nSvc Monitor 0\.1\.0 \(development\)\nElectron .* · Chromium .* · Node .*\n.*\nUpdates: disabled — Updates apply to installed builds; this is a development run\.$/);
    }
    click(/updates/i);
    await waitFor(() => rec.dialogs.some((d) => d.title === 'Check for updates'), 10_000, 'the update answer', 25);
    expect(rec.dialogs.find((d) => d.title === 'Check for updates')!.text).toBe('Updates are unavailable\nUpdates: disabled — Updates apply to installed builds; this is a development run.');
    click(/logs folder/i);
    expect(rec.openedPaths).toEqual([join(userData, 'logs')]);
    click(/diagnostics/i);
    expect(rec.clipboardTexts).toHaveLength(1);
    const report = rec.clipboardTexts[0]!;
    expect(report).toContain('## Environments (2)');
    expect(report).toMatch(/- Production <http:\/\/127\.0\.0\.1:9\/prod>: production; live: \w+/);
    expect(report).toContain(`Crash dumps (local only, never uploaded): ${userData}/Crashpad`);
    expect(report).toContain(`Logs: ${join(userData, 'logs')}`);
    // The bundle is shown in full first (the recording dialog answers Save), then written where the save dialog said.
    click(/support bundle/i);
    await waitFor(() => rec.dialogs.some((d) => d.kind === 'save'), 10_000, 'the save dialog', 25);
    const preview = rec.dialogs.find((d) => d.title === 'Save support bundle')!;
    expect(preview.text).toMatch(/^This is everything the support bundle holds/);
    const suggested = rec.dialogs.find((d) => d.kind === 'save')!.text;
    expect(suggested).toMatch(new RegExp(`^${join(userData, 'Downloads')}/svc-monitor-support-.*Z\\.json$`));
    const saved = join(userData, suggested.split('/').pop()!);
    await waitFor(() => existsSync(saved), 10_000, 'the saved bundle', 25);
    const bundle = await readFile(saved, 'utf8');
    expect(preview.text.endsWith(bundle)).toBe(true);
    expect(JSON.parse(bundle)).toMatchObject({ format: 'svc-monitor-support-bundle/1', environments: expect.arrayContaining([expect.objectContaining({ name: 'Production', isProduction: true })]) });
  });

  it('a crashed window is reloaded with a notice; a hung one after a grace period; an uncaught main error is logged every time and shown once', async () => {
    const { rec, userData } = await launch();
    await waitFor(() => rec.windows[0]?.loadedUrl !== undefined && rec.trays.length === 1, 10_000, 'the window', 25);
    const wc = rec.windows[0]!.webContents;
    wc.emit('render-process-gone', {}, { reason: 'crashed', exitCode: 139 });
    expect(wc.reloads).toBe(1);
    await waitFor(() => rec.dialogs.some((d) => d.title === 'The window was reloaded'), 10_000, 'the notice', 25);
    expect(rec.dialogs.find((d) => d.title === 'The window was reloaded')!.text).toMatch(/stopped \(crashed, exit code 139\) and was reloaded/);
    wc.emit('render-process-gone', {}, { reason: 'clean-exit', exitCode: 0 });
    expect(wc.reloads).toBe(1);
    // Hung, then answering again within the grace period: no reload.
    wc.emit('unresponsive');
    wc.emit('responsive');
    const before = process.listeners('uncaughtException');
    const mine = before.at(-1) as (err: Error) => void;
    mine(new Error('first surprise'));
    mine(new Error('second surprise'));
    await waitFor(() => rec.dialogs.some((d) => d.title === 'Svc Monitor hit an unexpected error'), 10_000, 'the error notice', 25);
    expect(rec.dialogs.filter((d) => d.title === 'Svc Monitor hit an unexpected error')).toHaveLength(1);
    const logText = await readFile(join(userData, 'logs/main.log'), 'utf8');
    expect(logText).toMatch(/ERROR uncaught exception: first surprise/);
    expect(logText).toMatch(/ERROR uncaught exception: second surprise/);
    expect(logText).toMatch(/ERROR renderer stopped \(crashed, exit code 139\): reloading the window/);
    expect(wc.reloads).toBe(1);
    // A page that crashes on every load: three reloads within five minutes, then a message and no more.
    for (let i = 0; i < 4; i++) wc.emit('render-process-gone', {}, { reason: 'crashed', exitCode: 139 });
    expect(wc.reloads).toBe(3);
    await waitFor(() => rec.dialogs.some((d) => d.title === 'The window keeps failing'), 10_000, 'the give-up message', 25);
    expect(rec.dialogs.find((d) => d.title === 'The window keeps failing')!.text).toMatch(/not reloaded again/);
  });
});

describe('start at login', () => {
  it('AppImage: links stay with its own desktop entry (Electron does not re-point them), and the autostart entry follows the AppImage\'s current file', async () => {
    const { dir, cleanup } = await createTempDir('svc-appimage-');
    cleanups.push(cleanup);
    const saved = { APPIMAGE: process.env['APPIMAGE'], XDG_CONFIG_HOME: process.env['XDG_CONFIG_HOME'], XDG_DATA_HOME: process.env['XDG_DATA_HOME'] };
    cleanups.push(async () => {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    });
    // The last run was Svc-Monitor-0.1.0.AppImage; an update renamed it to 0.2.0.
    const autostart = join(dir, 'config', 'autostart');
    await mkdir(autostart, { recursive: true });
    await writeFile(join(autostart, 'svc-monitor.desktop'), '[Desktop Entry]\nExec=/home/ops/Apps/Svc-Monitor-0.1.0.AppImage --hidden\n');
    process.env['APPIMAGE'] = '/home/ops/Apps/Svc-Monitor-0.2.0.AppImage';
    process.env['XDG_CONFIG_HOME'] = join(dir, 'config');
    process.env['XDG_DATA_HOME'] = join(dir, 'data');
    const { rec } = await launch({ files: { 'preferences.json': JSON.stringify({ startAtLogin: true }) }, prepare: () => expect(process.platform).toBe('linux') });
    await waitFor(() => rec.trays.length === 1, 10_000, 'the services', 25);
    expect(rec.calls.filter((c) => c.startsWith('setAsDefaultProtocolClient'))).toEqual([]);
    await waitFor(async () => (await readFile(join(autostart, 'svc-monitor.desktop'), 'utf8')).includes('Exec=/home/ops/Apps/Svc-Monitor-0.2.0.AppImage --hidden'), 10_000, 'the autostart entry re-pointed', 25);
    const handler = await waitFor(async () => await readFile(join(dir, 'data', 'applications', 'svc-monitor-appimage.desktop'), 'utf8').catch(() => undefined), 10_000, 'the link handler entry', 25);
    expect(handler).toContain('Exec=/home/ops/Apps/Svc-Monitor-0.2.0.AppImage %U');
  });

  it('a setting: on Linux an autostart entry that starts the console in the tray; elsewhere the system login item; a start with it shows only the tray', async () => {
    const { dir: config, cleanup } = await createTempDir('svc-autostart-');
    cleanups.push(cleanup);
    const previous = process.env['XDG_CONFIG_HOME'];
    process.env['XDG_CONFIG_HOME'] = config;
    cleanups.push(async () => {
      if (previous === undefined) delete process.env['XDG_CONFIG_HOME'];
      else process.env['XDG_CONFIG_HOME'] = previous;
    });
    const { rec, userData } = await launch({ prepare: () => expect(process.platform).toBe('linux') });
    await waitFor(() => rec.trays.length === 1 && rec.menus.length > 0, 10_000, 'the menu', 25);
    const checkbox = () => menuItems(rec.menus.at(-1)).find((i) => i.label === 'Start at login (in the tray)')!;
    expect(checkbox().checked).toBe(false);
    (checkbox().click as (item: { checked: boolean }) => void)({ checked: true });
    await waitFor(() => checkbox().checked === true, 10_000, 'the saved setting', 25);
    const entry = await readFile(join(config, 'autostart', 'svc-monitor.desktop'), 'utf8');
    expect(entry).toContain(`Exec=${process.execPath.includes(' ') ? `"${process.execPath}"` : process.execPath} --hidden\n`);
    expect(entry).toMatch(/^\[Desktop Entry\]\nType=Application\nName=Svc Monitor\n/);
    expect(JSON.parse(await readFile(join(userData, 'preferences.json'), 'utf8'))).toMatchObject({ startAtLogin: true });
    (checkbox().click as (item: { checked: boolean }) => void)({ checked: false });
    await waitFor(() => checkbox().checked === false, 10_000, 'the entry removed', 25);
    await expect(readFile(join(config, 'autostart', 'svc-monitor.desktop'), 'utf8')).rejects.toThrow(/ENOENT/);

    // Windows and macOS: the system's login item, opening hidden.
    const platform = Object.getOwnPropertyDescriptor(process, 'platform')!;
    Object.defineProperty(process, 'platform', { ...platform, value: 'win32' });
    try {
      (checkbox().click as (item: { checked: boolean }) => void)({ checked: true });
    } finally {
      Object.defineProperty(process, 'platform', platform);
    }
    await waitFor(() => rec.calls.some((c) => c.startsWith('setLoginItemSettings:')), 10_000, 'the login item', 25);
    expect(rec.calls).toContain('setLoginItemSettings:{"openAtLogin":true,"openAsHidden":true,"args":["--hidden"]}');

    // Started by the login item: the tray, no window on screen.
    process.argv.push('--hidden');
    try {
      const { rec: atLogin } = await launch();
      await waitFor(() => atLogin.trays.length === 1 && atLogin.windows[0]?.loadedUrl !== undefined, 10_000, 'the tray', 25);
      await new Promise((r) => setTimeout(r, 100));
      expect(atLogin.windows[0]!.shownAt).toBeUndefined();
    } finally {
      process.argv.pop();
    }
  });
});

describe('proxy credentials', () => {
  it('app "login" for a proxy: the window is asked (naming the proxy) and the answer goes to Chromium; a server\'s own request is left alone', async () => {
    const { rec } = await launch();
    await waitFor(() => rec.trays.length === 1, 10_000, 'the services', 25);
    const answered: unknown[][] = [];
    let prevented = 0;
    rec.appEmitter.emit('login', { preventDefault: () => prevented++ }, {}, { url: 'https://h/' }, { isProxy: false, host: 'h', port: 443, scheme: 'basic', realm: '' }, (...a: unknown[]) => answered.push(a));
    expect(prevented).toBe(0);
    rec.appEmitter.emit('login', { preventDefault: () => prevented++ }, {}, { url: 'https://h/' }, { isProxy: true, host: 'proxy.corp', port: 8080, scheme: 'basic', realm: 'Corp' }, (...a: unknown[]) => answered.push(a));
    expect(prevented).toBe(1);
    const wc = rec.windows[0]!.webContents;
    await waitFor(() => wc.sent.some(([, e]) => (e as { type: string }).type === 'proxyLogin'), 10_000, 'the prompt event', 25);
    const request = (wc.sent.find(([, e]) => (e as { type: string }).type === 'proxyLogin')![1] as { request: { id: string; proxy: string } }).request;
    expect(request.proxy).toBe('proxy.corp:8080');
    const answer = await rec.ipcHandlers.get('svc-monitor:proxy.answer')!({ senderFrame: { url: 'app://console/', parent: null } }, request.id, { username: 'jdoe', password: 'pw', remember: false });
    expect(answer).toEqual({ ok: true, value: null });
    await waitFor(() => answered.length === 1, 10_000, 'the callback', 25);
    expect(answered).toEqual([['jdoe', 'pw']]);
  });
});

describe('Windows toasts open their target through the svc-monitor: link', () => {
  it('a toast carries its target\'s link (escaped) and opens it by protocol activation, from the Action Center too', async () => {
    const rec = createRecordingElectron('/nowhere', process.cwd());
    vi.resetModules();
    vi.doMock('electron', () => rec.electron);
    const { createNativeNotificationSink } = await import('../../src/main/electron/nativeNotifications.js');
    const { formatTargetLink, parseDeepLink } = await import('../../src/main/deepLinks/parseDeepLink.js');
    const opened: unknown[] = [];
    const sink = createNativeNotificationSink((target) => opened.push(target), undefined, (target) => formatTargetLink('Prod & Co', target));
    const taskId = '7d3c2a1e-0000-4000-8000-000000000009';
    const platform = Object.getOwnPropertyDescriptor(process, 'platform')!;
    Object.defineProperty(process, 'platform', { ...platform, value: 'win32' });
    try {
      sink.show({ environmentId: 'prd', burstId: 'b1', isProduction: true, count: 1, title: 'Task failed in Prod & Co', body: 'Invoice: <503>', target: { kind: 'task', environmentId: 'prd', taskId } });
      sink.show({ environmentId: 'prd', burstId: 'b1-2', isProduction: true, count: 3, title: '3 tasks failed', body: 'x', target: { kind: 'inbox', environmentId: 'prd', burstId: 'b1-2' } });
    } finally {
      Object.defineProperty(process, 'platform', platform);
    }
    const [task, inbox] = rec.notifications;
    expect(task!.toastXml).toBe(
      `<toast activationType="protocol" launch="svc-monitor://Prod%20%26%20Co/tasks/${taskId}" scenario="urgent"><visual><binding template="ToastGeneric"><text>Task failed in Prod &amp; Co</text><text>Invoice: &lt;503&gt;</text></binding></visual></toast>`,
    );
    // The links read back to the same targets (the second instance hands them to openDeepLink).
    expect(parseDeepLink(`svc-monitor://Prod%20%26%20Co/tasks/${taskId}`)).toEqual({ environment: 'Prod & Co', taskId });
    expect(/launch="([^"]+)"/.exec(inbox!.toastXml!)![1]).toBe('svc-monitor://Prod%20%26%20Co/inbox?burst=b1-2');
    expect(parseDeepLink('svc-monitor://Prod%20%26%20Co/inbox?burst=b1-2')).toEqual({ environment: 'Prod & Co', inbox: { burstId: 'b1-2' } });
    // The click itself opens nothing more (the protocol does): no double open.
    task!.click();
    expect(opened).toEqual([]);
    // Elsewhere: no toast XML, the click handler opens the target.
    sink.show({ environmentId: 'prd', burstId: 'b2', isProduction: false, count: 1, title: 't', body: 'b', target: { kind: 'task', environmentId: 'prd', taskId } });
    expect(rec.notifications[2]!.toastXml).toBeUndefined();
    rec.notifications[2]!.click();
    expect(opened).toEqual([{ kind: 'task', environmentId: 'prd', taskId }]);
  });
});

describe('close behaviour', () => {
  it('hides on macOS (the dock brings it back), follows the tray choice elsewhere, closes on Quit', () => {
    expect(decideClose({ quitting: false, platform: 'darwin', closeToTray: false })).toBe('hide');
    expect(decideClose({ quitting: false, platform: 'linux', closeToTray: false })).toBe('quit');
    expect(decideClose({ quitting: false, platform: 'win32', closeToTray: true })).toBe('hide');
    expect(decideClose({ quitting: true, platform: 'win32', closeToTray: true })).toBe('close');
    expect([defaultCloseToTray('win32'), defaultCloseToTray('darwin'), defaultCloseToTray('linux')]).toEqual([true, true, false]);
  });
});
