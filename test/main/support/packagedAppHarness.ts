/**
 * Runs a packaged (extracted) app in a plain Node process: `node packagedAppHarness.mjs
 * <appDir> <userDataDir>`. The `electron` import resolves to the recording stand-in; every
 * other module resolves the way Node resolves it from <appDir>/out/main/index.js, i.e. only
 * from the packaged node_modules. The parent test drives it over the process IPC channel:
 * it calls bridge channels as the app frame, fetches app:// URLs through the protocol
 * handler, and reads snapshots of what the app did (window, tray, notifications, RSS).
 *
 * Compiled by the test with TypeScript's transpiler: imports only Node builtins and the
 * recording electron module.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRecordingElectron, useAsElectronModule } from './recordingElectron.js';

export type HarnessRequest =
  | { id: number; type: 'invoke'; channel: string; args: unknown[] }
  | { id: number; type: 'fetchApp'; url: string }
  | { id: number; type: 'snapshot' }
  | { id: number; type: 'clickNotification'; index: number }
  | { id: number; type: 'quit' };

export interface HarnessSnapshot {
  loadedUrl?: string;
  shownAt?: number;
  windowOptions?: Record<string, unknown>;
  sent: Array<{ channel: string; payload: unknown; at: number }>;
  notifications: Array<{ title: string; body: string; urgency?: string; at: number }>;
  calls: string[];
  trayImages: unknown[];
  rss: number;
}

const [appDir, userDataDir] = process.argv.slice(2) as [string, string];
const rec = createRecordingElectron(userDataDir, appDir, { packaged: true });
useAsElectronModule(rec.electron);

const appFrame = { senderFrame: { url: 'app://console/', parent: null } };

async function answer(request: HarnessRequest): Promise<unknown> {
  switch (request.type) {
    case 'invoke': {
      const handler = rec.ipcHandlers.get(`svc-monitor:${request.channel}`);
      if (!handler) throw new Error(`no handler for ${request.channel}`);
      return handler(appFrame, ...request.args);
    }
    case 'fetchApp': {
      const handler = rec.protocolHandlers.get('app');
      if (!handler) throw new Error('the app protocol is not handled');
      const r = await handler(new Request(request.url));
      return { status: r.status, headers: { 'content-security-policy': r.headers.get('content-security-policy') ?? '', 'content-type': r.headers.get('content-type') ?? '' }, text: r.status === 200 ? await r.text() : '' };
    }
    case 'snapshot': {
      const win = rec.windows[0];
      const snapshot: HarnessSnapshot = {
        ...(win?.loadedUrl ? { loadedUrl: win.loadedUrl } : {}),
        ...(win?.shownAt !== undefined ? { shownAt: win.shownAt } : {}),
        ...(win ? { windowOptions: win.options } : {}),
        sent: (win?.webContents.sent ?? []).map(([channel, payload], i) => ({ channel, payload, at: win!.webContents.sentAt[i]! })),
        notifications: rec.notifications.map(({ title, body, urgency, at }) => ({ title, body, ...(urgency ? { urgency } : {}), at })),
        calls: rec.calls,
        trayImages: rec.trays[0]?.images ?? [],
        rss: process.memoryUsage().rss,
      };
      return snapshot;
    }
    case 'clickNotification': {
      const n = rec.notifications[request.index];
      if (!n) throw new Error(`no notification ${request.index}`);
      n.click();
      return true;
    }
    case 'quit':
      rec.emitBeforeQuit();
      setTimeout(() => process.exit(0), 300);
      return true;
  }
}

process.on('message', (request: HarnessRequest) => {
  answer(request).then(
    (value) => process.send?.({ id: request.id, ok: true, value }),
    (err: Error) => process.send?.({ id: request.id, ok: false, error: err.stack ?? err.message }),
  );
});

await import(pathToFileURL(join(appDir, 'out/main/index.js')).href);
rec.emitReady();
process.send?.({ id: 0, ok: true, value: 'started' });
