import express from 'express';
import { createEngine, createMonitoring, openSqliteStorage } from 'svc-monitor-server';

const storage = openSqliteStorage({ file: process.env.DB_FILE ?? 'tasks.db' });
const engine = createEngine({ storage, queues: { default: { concurrency: 4 }, mail: { concurrency: 2, capacity: 100 } } });
engine.handle<{ to: string }>('Shop.Mail.SendReceipt', async (request, ctx) => {
  ctx.log.info(`sending the receipt to ${request.to}`); // your real work here; honour ctx.signal
}, { retry: { attempts: 3, backoffMs: 2_000 }, timeoutMs: 30_000 });
engine.handle('Shop.Reports.Nightly', async (_request, ctx) => ctx.log.info('report built'));

await engine.start();
await engine.dispatch('Shop.Mail.SendReceipt', { to: 'ada@example.com' }, { queue: 'mail' });
await engine.schedules.upsert({ key: 'nightly-report', type: 'Shop.Reports.Nightly', cron: '0 2 * * *',
  timeZone: 'Europe/Rome', misfire: { policy: 'Collapse' } });

const app = express();
const monitoring = createMonitoring({ engine, storage }, { jwtSecret: process.env.JWT_SECRET });
app.use(monitoring.router); // everything under /svc-monitoring: API, hub, dashboard
const port = Number(process.env.PORT ?? 3000);
const server = app.listen(port, '127.0.0.1', (error) => {
  if (error) { console.error(`cannot listen on 127.0.0.1:${port}: ${error.message}`); void stop(1); return; }
  console.log(`dashboard on http://127.0.0.1:${(server.address() as { port: number }).port}/svc-monitoring`);
});
monitoring.attach(server); // WebSocket upgrades of the live hub
async function stop(exitCode = 0) {
  server.close(); await monitoring.close(); await engine.stop({ graceMs: 5_000 }); storage.close(); process.exitCode = exitCode;
}
process.once('SIGTERM', () => void stop());
process.once('SIGINT', () => void stop()); // Ctrl+C
