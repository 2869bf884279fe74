import { HubConnectionBuilder, HttpTransportType, LogLevel, type HubConnection } from '@microsoft/signalr';
import type { Database } from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { createEngine } from '../../../server/src/engine/Engine.js';
import type { MonitoringOptions } from '../../../server/src/monitoring/options.js';
import { openSqliteStorage } from '../../../server/src/storage/sqlite/openSqliteStorage.js';
import { insertTask, login, serve, tempDb, type Served, type TempDb } from '../monitoring/fixtures.js';

export const OPERATOR = { managementUsername: 'operator', managementPassword: 'operator-pw' } as const;

/** A real engine and the monitoring on a temporary file, management enabled; types without a handler stay Queued. */
export async function startPowerHost(options: MonitoringOptions = {}) {
  const t: TempDb = tempDb();
  t.db.close();
  const storage = openSqliteStorage({ file: t.file });
  const engine = createEngine({ storage, queues: { default: { concurrency: 2 } } });
  engine.handle('Power.Works', async () => {});
  await engine.start();
  const s: Served = await serve({ engine, storage }, { enableManagementEndpoints: true, ...OPERATOR, loginRateLimit: false, ...options });
  const operate = await login(s.api, OPERATOR.managementUsername, OPERATOR.managementPassword);
  const read = await login(s.api);
  return {
    t,
    s,
    engine,
    storage,
    db: storage.db as Database,
    operate,
    read,
    insert: (input: Parameters<typeof insertTask>[1]) => insertTask(storage.db, input),
    row: (id: string) =>
      storage.db.prepare(`SELECT status, attempt, scheduled_at FROM tasks WHERE id = ?`).get(id) as { status: string; attempt: number } | undefined,
    audits: (id: string) =>
      storage.db.prepare(`SELECT new_status, changed_by FROM status_audit WHERE task_id = ? ORDER BY id`).all(id) as { new_status: string; changed_by: string | null }[],
    /** A live durable schedule row and `n` occurrences of it in `status`. */
    schedule(n: number, status: string, cancelled = false) {
      const scheduleId = insertTask(storage.db, {
        type: 'Power.Idle', status: cancelled ? 'Cancelled' : 'Pending', is_recurring: 1, occurrence_mode: 'Durable',
        task_key: `power-${randomUUID()}`, schedule_version: 1, time_zone_id: 'UTC', misfire_policy: 'ReplayAll',
      });
      const base = Date.now() - 3_600_000;
      const ids = Array.from({ length: n }, (_, i) =>
        insertTask(storage.db, {
          type: 'Power.Idle', status, parent_task_id: scheduleId, occurrence_mode: 'Durable', nominal_slot_at: base + i * 1000,
          run_number: i + 1, schedule_version: 1, time_zone_id: 'UTC', misfire_kind: 'OnTime', created_at: base + i,
          exception: status === 'Failed' ? 'Error: upstream 503' : null,
        }),
      );
      return { scheduleId, ids };
    },
    async hub(token: string): Promise<HubConnection> {
      const c = new HubConnectionBuilder()
        .withUrl(`${s.baseUrl}/svc-monitoring/hub`, { accessTokenFactory: () => token, transport: HttpTransportType.WebSockets })
        .configureLogging(LogLevel.None)
        .build();
      await c.start();
      return c;
    },
    async close() {
      await s.close();
      await engine.stop({ graceMs: 500 });
      storage.close();
      t.cleanup();
    },
  };
}

export async function until<T>(read: () => T | undefined | Promise<T | undefined>, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
