import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SvcEvent } from '../../server/src/contracts/events.js';
import { FailureInbox } from '../../src/main/notifications/FailureInbox.js';
import { INBOX_FILE } from '../../src/main/notifications/InboxFile.js';
import { createConsole } from '../fixtures/main/consoleSuite.js';
import { createTempDir } from '../fixtures/main/tempDir.js';

function failure(n: number): SvcEvent & { kind: 'Failed' } {
  return {
    kind: 'Failed',
    taskId: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    eventDateUtc: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, n)).toISOString(),
    severity: 'Error',
    taskType: 'Billing.Invoices.Send',
    message: `boom ${n}`,
  };
}

describe('the failure inbox across restarts', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ dir, cleanup } = await createTempDir()));
  afterEach(() => cleanup());

  it('comes back after a restart with its read state, and the badge counts only unread items', async () => {
    const first = await createConsole(dir);
    const env = await first.services.addEnvironment({ name: 'Production', baseUrl: 'http://127.0.0.1:9', colour: '#dc2626', isProduction: true });
    for (let n = 1; n <= 3; n++) first.services.notifier.handle(env.id, failure(n));
    const [newest] = first.services.inbox.list();
    first.services.inbox.markRead([newest!.id]);
    await first.services.dispose();
    const stored = await readFile(join(dir, INBOX_FILE), 'utf8');
    expect(stored).not.toMatch(/token|password/i);

    const second = await createConsole(dir);
    try {
      const items = second.services.inbox.list();
      expect(items.map((i) => [i.message, i.read])).toEqual([
        ['boom 3', true],
        ['boom 2', false],
        ['boom 1', false],
      ]);
      expect(second.badge.at(-1)).toBe(2);
      // New failures get new ids and bursts: an old burst never collects them.
      second.services.notifier.handle(env.id, failure(4));
      const added = second.services.inbox.list()[0]!;
      expect(items.map((i) => i.id)).not.toContain(added.id);
      expect(items.map((i) => i.burstId)).not.toContain(added.burstId);
    } finally {
      await second.services.dispose();
    }
  });

  it('keeps the newest 5,000 items, oldest dropped', () => {
    const inbox = new FailureInbox();
    const env = { id: 'e', name: 'E', isProduction: false };
    for (let n = 1; n <= 5_003; n++) inbox.add(env, failure(n), 'b');
    const items = inbox.list();
    expect(items).toHaveLength(5_000);
    expect(items[0]!.message).toBe('boom 5003');
    expect(items.at(-1)!.message).toBe('boom 4');
  });

  it('starts empty from an unreadable file and skips items it cannot read', async () => {
    await writeFile(join(dir, INBOX_FILE), '{"version":1,"items":[{"id":"f1"}, 42');
    const broken = await createConsole(dir);
    expect(broken.services.inbox.list()).toEqual([]);
    await broken.services.dispose();
    const good = { id: 'f7', environmentId: 'e', environmentName: 'E', isProduction: false, taskId: 't', taskType: 'T', kind: 'Timeout', message: 'm', eventDateUtc: '2026-01-01T00:00:00.000Z', burstId: 'b', read: false, whileAway: true };
    await writeFile(join(dir, INBOX_FILE), JSON.stringify({ version: 1, items: [{ id: 'bad' }, good] }));
    const partial = await createConsole(dir);
    expect(partial.services.inbox.list().map((i) => i.id)).toEqual(['f7']);
    await partial.services.dispose();
  });
});
