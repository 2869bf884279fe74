import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TaskSummary } from '../../server/src/contracts/task.js';
import { aesSafeStorage } from '../fixtures/main/aesSafeStorage.js';
import { createConsole, type RecordingConsole } from '../fixtures/main/consoleSuite.js';
import { createTempDir } from '../fixtures/main/tempDir.js';

/**
 * A host whose clock is two hours behind the desktop's: it answers /config (no login needed)
 * and GET /tasks with its failed tasks, newest first, paged as the API pages.
 */
async function skewedHost() {
  const failures: TaskSummary[] = [];
  const serverNow = Date.now() - 2 * 3_600_000;
  let seconds = 0;
  const fail = (count: number) => {
    for (let i = 0; i < count; i++) {
      seconds++;
      const at = new Date(serverNow + seconds * 1_000).toISOString();
      failures.unshift({ id: `00000000-0000-4000-8000-${String(seconds).padStart(12, '0')}`, type: 'Billing.Invoice', queueName: 'default', status: 'Failed', createdAtUtc: at, lastExecutionUtc: at, errorSummary: `boom ${seconds}` } as TaskSummary);
    }
  };
  const requests: URLSearchParams[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://host');
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (url.pathname === '/svc-monitoring/api/config') return json(200, { signalRHubPath: '/svc-monitoring/hub', requireAuthentication: false, managementEnabled: false, eventDebounceMs: 0 });
    if (url.pathname === '/svc-monitoring/api/tasks') {
      requests.push(url.searchParams);
      const page = Number(url.searchParams.get('page') ?? 1);
      const pageSize = Number(url.searchParams.get('pageSize') ?? 50);
      return json(200, { items: failures.slice((page - 1) * pageSize, page * pageSize), totalCount: failures.length, page, pageSize, totalPages: Math.max(1, Math.ceil(failures.length / pageSize)) });
    }
    json(404, { title: 'Not Found', status: 404 });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, fail, requests, close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))) };
}

describe('back-fill of many failures from a host whose clock differs from the desktop\'s', () => {
  let host: Awaited<ReturnType<typeof skewedHost>>;
  let dir: { dir: string; cleanup: () => Promise<void> };
  let recording: RecordingConsole;
  let envId = '';
  beforeAll(async () => {
    host = await skewedHost();
    dir = await createTempDir();
    recording = await createConsole(dir.dir, { safeStorage: aesSafeStorage('gnome_libsecret'), burstWindowMs: 50, backfillCap: 300, hub: { reconnectDelaysMs: [], retryAfterFailureMs: 600_000 } });
    host.fail(1);
    envId = (await recording.services.addEnvironment({ name: 'Lab', baseUrl: host.baseUrl, colour: '#2563eb', isProduction: false })).id;
  });
  afterAll(async () => {
    await recording?.services.dispose();
    await host?.close();
    await dir?.cleanup();
  });

  it('pages until it reaches what it saw before, by the server\'s times: 250 failures two hours "in the past" all reach the inbox', async () => {
    // The first back-fill only starts the clock (at the host's newest failure).
    expect(await recording.services.backfill(envId)).toBe(0);
    host.fail(250);
    expect(await recording.services.backfill(envId)).toBe(250);
    const items = recording.services.inbox.list({ environmentId: envId });
    expect(items).toHaveLength(250);
    expect(items.every((i) => i.whileAway)).toBe(true);
    expect(new Set(items.map((i) => i.message)).size).toBe(250);
    expect(items.some((i) => i.message === 'boom 1')).toBe(false);
    // Nothing new: nothing added twice.
    expect(await recording.services.backfill(envId)).toBe(0);
  });

  it('stops at its cap and says so, pointing to the Tasks page; the next back-fill starts after the newest', async () => {
    const before = recording.services.inbox.list({ environmentId: envId }).length;
    host.fail(450);
    expect(await recording.services.backfill(envId)).toBe(300);
    const items = recording.services.inbox.list({ environmentId: envId });
    expect(items).toHaveLength(before + 300);
    // The newest 300 of the 450: "boom 701" back to "boom 402".
    expect(items[0]!.message).toBe('boom 701');
    expect(items.some((i) => i.message === 'boom 402')).toBe(true);
    expect(items.some((i) => i.message === 'boom 401')).toBe(false);
    const told = recording.notifications.find((n) => n.burstId === `backfill-${envId}`);
    expect(told).toMatchObject({ title: 'Back-fill stopped at 300 failures in Lab', target: { kind: 'route', environmentId: envId, path: '/tasks?status=Failed' } });
    expect(told!.body).toBe('More than 300 tasks failed while the console was not watching; the inbox has the newest 300, the Tasks page lists them all.');
    host.fail(2);
    expect(await recording.services.backfill(envId)).toBe(2);
  });

  it('an environment moved to another server does not take that server\'s history for new failures: its clock starts again there', async () => {
    const other = await skewedHost();
    try {
      // The new server has a long history, much of it later than the last failure seen on the old one.
      other.fail(1000);
      const before = recording.services.inbox.list({ environmentId: envId }).length;
      await recording.services.updateEnvironment(envId, { baseUrl: other.baseUrl });
      // The first back-fill there only starts the clock; a failure after it is new.
      expect(await recording.services.backfill(envId)).toBe(0);
      expect(recording.services.inbox.list({ environmentId: envId })).toHaveLength(before);
      other.fail(1);
      expect(await recording.services.backfill(envId)).toBe(1);
    } finally {
      await other.close();
    }
  });
});
