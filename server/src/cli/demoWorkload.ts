import type { Engine } from '../engine/types.js';
import type { DemoSeedStore } from '../storage/openStorage.js';

export const DEMO_SAMPLES = ['fast', 'slow', 'flaky', 'failing', 'timeout', 'logging'] as const;
export type DemoSample = (typeof DEMO_SAMPLES)[number];

const TYPES: Record<DemoSample, string> = {
  fast: 'Demo.Orders.ConfirmOrder',
  slow: 'Demo.Reports.BuildMonthlyReport',
  flaky: 'Demo.Payments.CapturePayment',
  failing: 'Demo.Legacy.SyncLegacyInventory',
  timeout: 'Demo.Partners.CallSlowPartner',
  logging: 'Demo.Mail.SendNewsletter',
};
const QUEUES: Record<DemoSample, string> = { fast: 'default', slow: 'reports', flaky: 'default', failing: 'default', timeout: 'default', logging: 'mail' };

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    }, { once: true });
  });

/** Sample handlers, an inline recurring task, durable schedules under each misfire policy (one halted). */
export async function registerDemoWorkload(engine: Engine, seed: DemoSeedStore) {
  let counter = 0;
  engine.handle(TYPES.fast, async (_req, ctx) => {
    await sleep(20 + Math.random() * 120, ctx.signal);
  });
  engine.handle(TYPES.slow, async (_req, ctx) => {
    ctx.log.info('Collecting figures');
    await sleep(2_000 + Math.random() * 3_000, ctx.signal);
    ctx.log.info('Report built');
  });
  engine.handle(
    TYPES.flaky,
    async (_req, ctx) => {
      await sleep(50, ctx.signal);
      if (Math.random() < 0.5) throw new Error('Payment gateway answered 503 (transient)');
    },
    { retry: { attempts: 3, backoffMs: 300 } },
  );
  engine.handle(TYPES.failing, async () => {
    throw new Error('Legacy inventory endpoint is gone (HTTP 410)');
  });
  engine.handle(TYPES.timeout, async (_req, ctx) => {
    await sleep(10_000, ctx.signal);
  }, { timeoutMs: 800 });
  engine.handle(TYPES.logging, async (req, ctx) => {
    const n = (req as { recipients?: number }).recipients ?? 3;
    ctx.log.debug(`Preparing newsletter for ${n} recipients`);
    for (let i = 1; i <= n; i++) ctx.log.info(`Sent to recipient ${i}/${n}`);
    ctx.log.warn('One address bounced softly');
    ctx.log.error('One address was rejected', new Error('550 mailbox unavailable'));
  });
  engine.handle('Demo.Health.Ping', async () => {});
  engine.handle('Demo.Reports.HourlySales', async (_req, ctx) => {
    await sleep(100, ctx.signal);
  });

  const dispatch = async (sample: DemoSample): Promise<string> =>
    engine.dispatch(TYPES[sample], sample === 'logging' ? { recipients: 4 } : { n: ++counter }, { queue: QUEUES[sample] });

  let timer: NodeJS.Timeout | undefined;
  return {
    dispatch,
    /**
     * Before engine.start(): durable schedules under each misfire policy. A schedule created now
     * gets a simulated downtime (its materializer cursor moved back) so the first planning pass
     * after start finds missed slots; the per-minute ReplayAll one exceeds its cap and halts.
     */
    async seedSchedules() {
      const exists = (key: string) => seed.hasSchedule(key);
      const hour = 3_600_000;
      const now = Date.now();
      // Simulated downtime: each schedule's materializer cursor is moved back, so the first
      // planning pass finds missed slots and applies the schedule's misfire policy.
      const backdate = (id: string, ms: number) => seed.backdate(id, now - ms - 1, now - ms);
      const policies = [
        ['ReplayAll', 100],
        ['SkipOldest', 10],
        ['Collapse', 100],
        ['Skip', 100],
      ] as const;
      for (const [policy, overflowCap] of policies) {
        const key = `demo-sales-${policy.toLowerCase()}`;
        const fresh = !(await exists(key));
        const id = await engine.schedules.upsert({
          key,
          type: 'Demo.Reports.HourlySales',
          request: { policy },
          every: '5m',
          startAt: new Date(now - 3 * hour),
          misfire: { policy, windowMs: 24 * hour, overflowCap },
        });
        if (fresh) await backdate(id, 3 * hour);
      }
      // Halted: a per-minute ReplayAll schedule down for 20 hours (1,200 slots) over its cap of 100.
      const freshHalted = !(await exists('demo-halted-replay'));
      const halted = await engine.schedules.upsert({
        key: 'demo-halted-replay',
        type: 'Demo.Reports.HourlySales',
        request: { halted: true },
        every: '1m',
        startAt: new Date(now - 20 * hour),
        misfire: { policy: 'ReplayAll', windowMs: 24 * hour, overflowCap: 100 },
      });
      if (freshHalted) await backdate(halted, 20 * hour);
    },
    async start() {
      await engine.recurring('Demo.Health.Ping', {}, { every: '30s', taskKey: 'demo-health-ping' });
      for (const s of DEMO_SAMPLES) await dispatch(s);
      timer = setInterval(() => {
        const r = Math.random();
        const s: DemoSample = r < 0.5 ? 'fast' : r < 0.65 ? 'flaky' : r < 0.75 ? 'logging' : r < 0.85 ? 'slow' : r < 0.93 ? 'failing' : 'timeout';
        void dispatch(s).catch(() => undefined);
      }, 1_500);
    },
    stop() {
      if (timer) clearInterval(timer);
    },
  };
}
