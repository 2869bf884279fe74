import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import express from 'express';
import type { Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { SvcEvent } from '../../../server/src/contracts/events.js';
import { createMonitoring } from '../../../server/src/monitoring/createMonitoring.js';
import type { MonitoringOptions } from '../../../server/src/monitoring/options.js';
import { openSqliteStorage } from '../../../server/src/storage/sqlite/openSqliteStorage.js';
import { writeTaskRow } from '../../fixtures/writeTaskRow.js';

export interface FullHost {
  baseUrl: string;
  /** Inserts a live durable schedule row (key `key`) into the host's database; returns its id. */
  seedSchedule(key: string, type?: string): string;
  /** Emits an engine event (what the engine's `event` emitter carries) through the real hub. */
  emit(event: SvcEvent): void;
  /** WebSocket upgrade requests the host received (the hub's WebSocket transport). */
  upgrades(): number;
  close(): Promise<void>;
}

/**
 * Full registration (API + the real SignalR-protocol hub) with options the demo CLI does not
 * expose (short-lived tokens). The event source is an EventEmitter with the engine's event
 * surface, so the test decides exactly which events the hub broadcasts.
 */
export async function startFullHost(dir: string, options: MonitoringOptions = {}, tls?: { key: string; cert: string }): Promise<FullHost> {
  const storage = openSqliteStorage({ file: join(dir, `full-${Math.random().toString(36).slice(2)}.db`) });
  const emitter = new EventEmitter();
  const notSupported = async () => ({ status: 'NotSupported' as const, message: 'no engine in this host' });
  const db = storage.db;
  // The schedule manager's cancel, reduced to what the console observes: the row becomes
  // Cancelled (the real engine also cancels pending occurrences).
  const cancel = async (key: string) => {
    const row = db.prepare(`SELECT id, status FROM tasks WHERE task_key = ? AND occurrence_mode = 'Durable' AND parent_task_id IS NULL`).get(key) as { id: string; status: string } | undefined;
    if (!row) return { status: 'NotFound' as const, message: `No schedule with key ${key}` };
    if (row.status === 'Cancelled') return { status: 'Conflict' as const, message: 'Already cancelled', taskId: row.id };
    writeTaskRow(db, row.id, () => db.prepare(`UPDATE tasks SET status = 'Cancelled' WHERE id = ?`).run(row.id));
    return { status: 'Succeeded' as const, message: `Schedule ${key} cancelled`, taskId: row.id };
  };
  const engine = {
    schedules: { requeue: notSupported, resume: notSupported, cancel },
    on: (e: 'event', l: (x: SvcEvent) => void) => emitter.on(e, l),
    off: (e: 'event', l: (x: SvcEvent) => void) => emitter.off(e, l),
  };
  const monitoring = createMonitoring({ engine, storage }, { enableUI: false, loginRateLimit: false, logger: { info: () => undefined, warn: () => undefined }, ...options });
  await monitoring.ready;
  const app = express();
  app.use(monitoring.router);
  // With `tls` the host answers over HTTPS with that key and certificate.
  const server: Server = await new Promise((resolve) => {
    const s: Server = tls ? createHttpsServer(tls, app) : app.listen(0, '127.0.0.1', () => resolve(s));
    if (tls) s.listen(0, '127.0.0.1', () => resolve(s));
  });
  let upgrades = 0;
  server.on('upgrade', () => upgrades++);
  monitoring.attach(server);
  return {
    baseUrl: `${tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`,
    emit: (event) => emitter.emit('event', event),
    upgrades: () => upgrades,
    seedSchedule(key, type = 'Reports.Nightly.Build') {
      const id = randomUUID();
      const now = Date.now();
      writeTaskRow(db, id, () =>
        db.prepare(
          `INSERT INTO tasks (id, type, handler, request, queue, status, task_key, audit_level, created_at, is_recurring,
             occurrence_mode, misfire_policy, time_zone_id, schedule_version)
           VALUES (?, ?, ?, '{}', 'default', 'Pending', ?, 'Full', ?, 1, 'Durable', 'ReplayAll', 'UTC', 1)`,
        ).run(id, type, `${type}Handler`, key, now),
      );
      return id;
    },
    async close() {
      await monitoring.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      storage.close();
    },
  };
}

let n = 0;
export function svcEvent(kind: SvcEvent['kind'], taskType = 'Billing.Invoices.SendInvoice'): SvcEvent {
  n++;
  return {
    kind,
    taskId: `0b6c1f7e-2a44-4d4b-9f3e-${String(n).padStart(12, '0')}`,
    eventDateUtc: new Date().toISOString(),
    severity: kind === 'Failed' ? 'Error' : kind === 'Completed' || kind === 'Started' ? 'Information' : 'Warning',
    taskType,
    message: `${kind} #${n}`,
    ...(kind === 'Failed' ? { exception: 'System.InvalidOperationException: boom' } : {}),
    queueName: 'default',
  };
}
