import express from 'express';
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../../server/src/engine/Engine.js';
import { createMonitoring } from '../../../server/src/monitoring/createMonitoring.js';
import { openSqliteStorage } from '../../../server/src/storage/sqlite/openSqliteStorage.js';
import { writeTaskRow } from '../../fixtures/writeTaskRow.js';
import { useTwoEnvironmentDesktop } from './desktopHarness.js';

const CREDENTIALS = { username: 'viewer', password: 'read-pw', managementUsername: 'operator', managementPassword: 'operate-pw', enableManagementEndpoints: true };

interface EngineHost {
  baseUrl: string;
  /** A live durable schedule with `n` Failed occurrences; returns their ids. */
  seedFailedOccurrences(n: number): string[];
  statusOf(id: string): string;
  close(): Promise<void>;
}

/** A real engine (no handler for the seeded type, so requeued rows stay Queued) with the monitoring. */
async function startEngineHost(dir: string): Promise<EngineHost> {
  const storage = openSqliteStorage({ file: join(dir, `bulk-${randomUUID()}.db`) });
  const engine = createEngine({ storage });
  await engine.start();
  const monitoring = createMonitoring({ engine, storage }, { enableUI: false, loginRateLimit: false, logger: { info: () => undefined, warn: () => undefined }, ...CREDENTIALS });
  const app = express();
  app.use(monitoring.router);
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  monitoring.attach(server);
  const db = storage.db;
  const insert = db.prepare(`INSERT INTO tasks (id, type, handler, request, queue, status, task_key, audit_level, created_at, is_recurring,
      occurrence_mode, misfire_policy, time_zone_id, schedule_version, parent_task_id, nominal_slot_at, run_number, misfire_kind, exception)
    VALUES (@id, 'Billing.Nightly.Close', 'Billing.Nightly.CloseHandler', '{}', 'default', @status, @key, 'Full', @created, @recurring,
      'Durable', 'ReplayAll', 'UTC', 1, @parent, @slot, @run, @kind, @exception)`);
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seedFailedOccurrences(n) {
      const scheduleId = randomUUID();
      const now = Date.now();
      writeTaskRow(db, scheduleId, () =>
        insert.run({ id: scheduleId, status: 'Pending', key: `nightly-${scheduleId}`, created: now - 86_400_000, recurring: 1, parent: null, slot: null, run: null, kind: null, exception: null }),
      );
      return Array.from({ length: n }, (_, i) => {
        const id = randomUUID();
        writeTaskRow(db, id, () =>
          insert.run({ id, status: 'Failed', key: null, created: now - 3_600_000 + i, recurring: 0, parent: scheduleId, slot: now - 3_600_000 + i * 60_000, run: i + 1, kind: 'OnTime', exception: 'Error: ledger locked' }),
        );
        return id;
      });
    },
    statusOf: (id) => (db.prepare(`SELECT status FROM tasks WHERE id = ?`).get(id) as { status: string }).status,
    async close() {
      await monitoring.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await engine.stop({ graceMs: 200 });
      storage.close();
    },
  };
}

describe('desktop console: bulk requeue of a filtered list against a real engine', () => {
  const desk = useTwoEnvironmentDesktop<EngineHost>({
    tempPrefix: 'svc-desktop-bulk-',
    start: async (dir) => [await startEngineHost(dir), await startEngineHost(dir)],
    stop: (host) => host.close(),
  });

  it('"Requeue 30 failed occurrences in Production" needs the typed name, shows progress, and the rows are back in Queued', async () => {
    const ids = desk.production.seedFailedOccurrences(30);
    await desk.h.services.requireSession(desk.productionId).loginWithPassword('operator', 'operate-pw', false);
    const p = desk.h.page;
    await p.goto(desk.url);
    desk.h.services.openDeepLink(`svc-monitor://Production/tasks/${ids[0]}`);
    await expect.poll(() => p.getByTestId('active-env').textContent(), { timeout: 15_000 }).toBe('Production');
    await p.locator('a', { hasText: /^\s*\S*\s*Tasks\s*$/ }).first().click();
    await p.locator('label.chip:has(input[name="status-Failed"])').click();
    await p.locator('select[name="onlyOccurrences"]').selectOption('true');
    await expect.poll(() => p.getByTestId('task-total').textContent(), { timeout: 15_000 }).toContain('30 matching');

    await p.locator('[data-bulk="requeue"]').click();
    const dialog = p.getByTestId('confirm-dialog');
    await dialog.waitFor();
    expect(await dialog.locator('h2').textContent()).toBe('Requeue 30 failed occurrences in Production?');
    expect(await p.getByTestId('confirm-ok').isDisabled()).toBe(true);
    await p.getByTestId('confirm-typed').fill('Production');
    await p.getByTestId('confirm-ok').click();

    await expect.poll(() => p.getByTestId('bulk-progress').textContent(), { timeout: 20_000 }).toContain('Completed');
    expect(await p.getByTestId('bulk-progress').textContent()).toContain('30 / 30');
    expect(await p.getByTestId('bulk-message').textContent()).toContain('30 done, 0 skipped');
    expect(ids.every((id) => desk.production.statusOf(id) === 'Queued')).toBe(true);
    await expect.poll(() => p.getByTestId('task-total').textContent(), { timeout: 15_000 }).toContain('0 matching');
  });
});
