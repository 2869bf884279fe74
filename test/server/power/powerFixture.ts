import { HubConnectionBuilder, HttpTransportType, LogLevel, type HubConnection } from '@microsoft/signalr';
import { randomUUID } from 'node:crypto';
import type { MonitoringOptions } from '../../../server/src/monitoring/options.js';
import { insertTask, login, serve, type Served } from '../monitoring/fixtures.js';
import { openMonitoredStore, type MonitoredStore } from '../monitoring/monitoredStore.js';

export const OPERATOR = { managementUsername: 'operator', managementPassword: 'operator-pw' } as const;

type TaskInput = Parameters<typeof insertTask>[1];

/**
 * A real engine and the monitoring on a fresh store of the backend under test (see
 * monitoring/monitoredStore.ts), management enabled; types without a handler stay Queued.
 */
export async function startPowerHost(options: MonitoringOptions = {}) {
  const t: MonitoredStore = openMonitoredStore();
  const engine = t.engine({ queues: { default: { concurrency: 2 } } });
  engine.handle('Power.Works', async () => {});
  await engine.start();
  const s: Served = await serve(await t.source(engine), { enableManagementEndpoints: true, ...OPERATOR, loginRateLimit: false, ...options });
  const operate = await login(s.api, OPERATOR.managementUsername, OPERATOR.managementPassword);
  const read = await login(s.api);
  return {
    t,
    s,
    engine,
    probe: t.probe,
    operate,
    read,
    insert: (input: TaskInput) => t.seed((db) => insertTask(db, input)),
    /** Several rows in one write (one transaction on PostgreSQL). */
    insertMany: (inputs: readonly TaskInput[]) => t.seed((db) => inputs.map((input) => insertTask(db, input))),
    row: (id: string) => t.probe.row<{ status: string; attempt: number }>(`SELECT status, attempt, scheduled_at FROM tasks WHERE id = ?`, id),
    /** Statuses of the rows, in the order given. */
    statuses: (ids: readonly string[]) => t.probe.statuses(ids),
    audits: (id: string) =>
      t.probe.rows<{ new_status: string; changed_by: string | null }>(`SELECT new_status, changed_by FROM status_audit WHERE task_id = ? ORDER BY id`, id),
    /** A live durable schedule row and `n` occurrences of it in `status`. */
    schedule: (n: number, status: string, cancelled = false) =>
      t.seed((db) => {
        const scheduleId = insertTask(db, {
          type: 'Power.Idle', status: cancelled ? 'Cancelled' : 'Pending', is_recurring: 1, occurrence_mode: 'Durable',
          task_key: `power-${randomUUID()}`, schedule_version: 1, time_zone_id: 'UTC', misfire_policy: 'ReplayAll',
        });
        const base = Date.now() - 3_600_000;
        const ids = Array.from({ length: n }, (_, i) =>
          insertTask(db, {
            type: 'Power.Idle', status, parent_task_id: scheduleId, occurrence_mode: 'Durable', nominal_slot_at: base + i * 1000,
            run_number: i + 1, schedule_version: 1, time_zone_id: 'UTC', misfire_kind: 'OnTime', created_at: base + i,
            exception: status === 'Failed' ? 'Error: upstream 503' : null,
          }),
        );
        return { scheduleId, ids };
      }),
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
      await t.destroy();
    },
  };
}
