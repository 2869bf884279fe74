import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, deferred, harness } from '../../fixtures/server/engineHarness.js';
import { waitFor } from '../../fixtures/waitFor.js';

afterEach(closeAll);

describe('engine lifecycle (status transitions of docs/architecture.md)', () => {
  it('dispatch → Queued → InProgress → Completed with audits, fields and events', async () => {
    const h = harness();
    h.engine.handle('Billing.Invoices.SendInvoice', async (req: { n: number }, ctx) => {
      ctx.log.info(`sending ${req.n}`);
    });
    await h.engine.start();
    const id = await h.engine.dispatch('Billing.Invoices.SendInvoice', { n: 7 });
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await waitFor(async () => (await h.status(id)) === 'Completed');
    expect((await h.audits(id))).toEqual(['Queued', 'InProgress', 'Completed']);
    const row = (await h.row(id));
    expect(row).toMatchObject({
      type: 'Billing.Invoices.SendInvoice',
      handler: 'Billing.Invoices.SendInvoiceHandler',
      request: '{"n":7}',
      queue: 'default',
      audit_level: 'Full',
      run_count: 1,
      last_outcome: 'Completed',
      is_recurring: 0,
    });
    expect(row['started_at']).toBeTypeOf('number');
    expect(row['last_execution_at'] as number).toBeGreaterThanOrEqual(row['started_at'] as number);
    expect(row['execution_time_ms']).toBeTypeOf('number');
    await waitFor(async () => h.events.some((e) => e.kind === 'Completed'));
    expect(h.events.map((e) => e.kind)).toEqual(['Started', 'Completed']);
    const completed = h.events[1]!;
    expect(completed.taskId).toBe(id);
    expect(completed.severity).toBe('Information');
    expect(completed.taskParameters).toBe('{"n":7}');
    expect(completed.executionLogs?.map((l) => l.message)).toEqual(['sending 7']);
    expect(completed.executionLogs?.[0]?.id).toBeGreaterThan(0);
    expect('exception' in completed).toBe(false);
    expect('parentTaskId' in completed).toBe(false);
  });

  it('a throwing handler → Failed with exception text, execution time 0, Failed event', async () => {
    const h = harness();
    h.engine.handle('Ops.Boom', () => {
      throw new Error('kaboom');
    });
    await h.engine.start();
    const id = await h.engine.dispatch('Ops.Boom', {});
    await waitFor(async () => (await h.status(id)) === 'Failed');
    const audits = (await h.auditRows(id));
    expect(audits.map((a) => a.new_status)).toEqual(['Queued', 'InProgress', 'Failed']);
    expect(audits[2]!.exception).toContain('kaboom');
    expect((await h.row(id))).toMatchObject({ execution_time_ms: 0, last_outcome: 'Failed', run_count: 1 });
    await waitFor(async () => h.events.some((e) => e.kind === 'Failed'));
    const failed = h.events.find((e) => e.kind === 'Failed')!;
    expect(failed.severity).toBe('Error');
    expect(failed.exception).toContain('kaboom');
  });

  it('running handlers do not hold a transaction: another write commits meanwhile', async () => {
    const h = harness();
    const gate = deferred();
    h.engine.handle('Slow.Job', () => gate.promise);
    h.engine.handle('Quick.Job', () => undefined);
    await h.engine.start();
    const slow = await h.engine.dispatch('Slow.Job', {});
    await waitFor(async () => (await h.status(slow)) === 'InProgress');
    const quick = await h.engine.dispatch('Quick.Job', {});
    await waitFor(async () => (await h.status(quick)) === 'Completed');
    expect((await h.status(slow))).toBe('InProgress');
    gate.resolve();
    await waitFor(async () => (await h.status(slow)) === 'Completed');
  });
});
