import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiGet, apiLogin, startDemo, type CliProcess } from '../fixtures/demoProcess.js';
import { aesSafeStorage } from '../fixtures/main/aesSafeStorage.js';
import { createConsole } from '../fixtures/main/consoleSuite.js';
import { waitFor } from '../fixtures/waitFor.js';
import { createTempDir } from '../fixtures/main/tempDir.js';

describe('back-fill: failures while the console was not running reach the inbox', () => {
  let dir: { dir: string; cleanup: () => Promise<void> };
  let demo: CliProcess;
  const safeStorage = aesSafeStorage('gnome_libsecret');
  beforeAll(async () => {
    dir = await createTempDir();
    demo = await startDemo(dir.dir);
  }, 120_000);
  afterAll(async () => {
    await demo?.stop();
    await dir?.cleanup();
  });

  it('after a restart, asks for the tasks that failed since the last event seen and marks them "while you were away"', async () => {
    const userData = join(dir.dir, 'user-data');
    const first = await createConsole(userData, { safeStorage, burstWindowMs: 100 });
    const env = await first.services.addEnvironment({ name: 'Production', baseUrl: demo.baseUrl, colour: '#dc2626', isProduction: true });
    await first.services.requireSession(env.id).loginWithPassword('admin', 'admin', true);
    await first.services.hub.whenState(env.id, 'connected', 15_000);
    // The first connection only starts the clock: nothing from before is back-filled.
    expect(await first.services.backfill(env.id)).toBe(0);
    await first.services.dispose();

    // The console is closed: a task fails on the host.
    const failedId = await demo.dispatch('failing');
    const token = await apiLogin(demo.api);
    const deadline = Date.now() + 15_000;
    while ((await apiGet<{ status: string }>(demo.api, `/tasks/${failedId}`, token)).status !== 'Failed') {
      if (Date.now() > deadline) throw new Error('the dispatched task did not fail');
      await new Promise((r) => setTimeout(r, 100));
    }

    const second = await createConsole(userData, { safeStorage, burstWindowMs: 100 });
    try {
      await second.services.start();
      await waitFor(() => second.services.inbox.list().some((i) => i.taskId === failedId), 20_000, 'the back-filled failure', 25);
      const item = second.services.inbox.list().find((i) => i.taskId === failedId)!;
      expect(item).toMatchObject({ environmentId: env.id, kind: 'Failed', whileAway: true, read: false, taskType: 'SyncLegacyInventory' });
      expect(item.message).toMatch(/Legacy inventory endpoint is gone/);
      // It notifies like a live failure (the burst that holds it).
      await waitFor(() => second.notifications.some((n) => n.burstId === item.burstId), 5_000, 'its notification', 25);
      // A second back-fill adds nothing twice.
      const before = second.services.inbox.list().filter((i) => i.taskId === failedId).length;
      await second.services.backfill(env.id);
      expect(second.services.inbox.list().filter((i) => i.taskId === failedId)).toHaveLength(before);
    } finally {
      await second.services.dispose();
    }
  }, 90_000);
});
