import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SvcEvent } from '../../server/src/contracts/events.js';
import type { InboxChange } from '../../src/shared/inbox.js';
import type { RendererEvent } from '../../src/shared/rendererEvents.js';
import { createConsole, type RecordingConsole } from '../fixtures/main/consoleSuite.js';
import { waitFor } from '../fixtures/waitFor.js';
import { createRecordingElectron } from '../fixtures/main/recordingElectron.js';
import { createTempDir } from '../fixtures/main/tempDir.js';

const failure = (n: number): SvcEvent => ({
  kind: 'Failed',
  taskId: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  eventDateUtc: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, n)).toISOString(),
  severity: 'Error',
  taskType: 'Billing.Invoice',
  message: `boom ${n}`,
});

describe('a failure storm: the renderer is sent the inbox\'s changes, a few times a second', () => {
  let dir: { dir: string; cleanup: () => Promise<void> };
  let recording: RecordingConsole;
  const inboxEvents: Array<Extract<RendererEvent, { type: 'inbox' }>> = [];
  beforeAll(async () => {
    dir = await createTempDir();
    recording = await createConsole(dir.dir, { burstWindowMs: 50 });
    recording.services.onEvent((e) => e.type === 'inbox' && inboxEvents.push(e));
  });
  afterAll(async () => {
    await recording?.services.dispose();
    await dir?.cleanup();
  });

  it('1,000 failures arriving within a second make a handful of inbox events that carry exactly the new items', async () => {
    const env = await recording.services.addEnvironment({ name: 'Lab', baseUrl: 'http://127.0.0.1:9', colour: '#2563eb', isProduction: false });
    for (let n = 1; n <= 1_000; n++) {
      recording.services.receive(env.id, failure(n));
      if (n % 100 === 0) await new Promise((r) => setTimeout(r, 20));
    }
    await waitFor(() => inboxEvents.at(-1)?.total === 1_000, 10_000, 'the last inbox event', 25);
    expect(inboxEvents.length).toBeLessThanOrEqual(20);
    const added = inboxEvents.flatMap((e) => e.changes).filter((c): c is Extract<InboxChange, { kind: 'added' }> => c.kind === 'added').flatMap((c) => c.items);
    expect(added).toHaveLength(1_000);
    expect(new Set(added.map((i) => i.message)).size).toBe(1_000);
    expect(inboxEvents.at(-1)).toMatchObject({ unread: 1_000, total: 1_000 });
    // Marking read sends the ids, not the items.
    recording.services.inbox.markRead(undefined, { environmentId: env.id });
    await waitFor(() => inboxEvents.at(-1)?.unread === 0, 10_000, 'the read change', 25);
    expect(inboxEvents.at(-1)!.changes).toEqual([{ kind: 'read', ids: expect.any(Array) }]);
  });
});

describe('the tray during a storm', () => {
  it('1,000 unread-count changes in a row rebuild the tray image and menu once, with the last count', async () => {
    const rec = createRecordingElectron('/nowhere', process.cwd());
    vi.resetModules();
    vi.doMock('electron', () => rec.electron);
    const { TrayController } = await import('../../src/main/electron/trayAndBadge.js');
    const noop = () => undefined;
    const tray = new TrayController({ normal: 'normal.png', unread: 'unread.png', warning: 'warning.png' }, { show: noop, openEnvironment: noop, openInbox: noop, quit: noop }, () => undefined, 50);
    const menus: unknown[] = [];
    const fake = rec.trays[0]!;
    const setContextMenu = fake.setContextMenu.bind(fake);
    fake.setContextMenu = (m: unknown) => (menus.push(m), setContextMenu(m));
    for (let n = 1; n <= 1_000; n++) tray.setUnreadCount(n);
    await waitFor(() => fake.tooltip === 'Svc Monitor — 1000 unread failures', 10_000, 'the coalesced update', 25);
    await new Promise((r) => setTimeout(r, 100));
    expect(fake.images).toEqual([{ path: 'unread.png' }]);
    expect(menus).toHaveLength(1);
    expect(rec.calls.filter((c) => c.startsWith('badge:'))).toEqual(['badge:0', 'badge:1000']);
    tray.destroy();
  });
});
