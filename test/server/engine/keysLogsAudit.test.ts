import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, deferred, harness } from '../../fixtures/server/engineHarness.js';
import { waitFor } from '../../fixtures/waitFor.js';

afterEach(closeAll);

describe('task keys', () => {
  it('a non-terminal keyed row is returned; while Pending its request and due time are updated', async () => {
    const h = harness();
    h.engine.handle('Key.Job', () => undefined);
    const a = await h.engine.dispatch('Key.Job', { v: 1 }, { taskKey: 'k1', delayMs: 60_000 });
    const b = await h.engine.dispatch('Key.Job', { v: 2 }, { taskKey: 'k1', delayMs: 50 });
    expect(b).toBe(a);
    expect((await h.row(a))).toMatchObject({ request: '{"v":2}', status: 'Pending', task_key: 'k1' });
    expect((await h.row(a))['scheduled_at'] as number).toBeLessThan(Date.now() + 1000);
    expect((await h.probe.value('SELECT COUNT(*) FROM tasks'))).toBe(1);
    await h.engine.start();
    await waitFor(async () => (await h.status(a)) === 'Completed');
    const c = await h.engine.dispatch('Key.Job', { v: 3 }, { taskKey: 'k1' });
    expect(c).not.toBe(a);
    await waitFor(async () => (await h.status(c)) === 'Completed');
  });

  it('an open inline recurring row with the key is returned instead of a second row', async () => {
    const h = harness();
    h.engine.handle('Key.Every', () => undefined);
    const a = await h.engine.recurring('Key.Every', {}, { every: '1h', taskKey: 'rk' });
    const b = await h.engine.recurring('Key.Every', {}, { every: '1h', taskKey: 'rk' });
    expect(b).toBe(a);
    expect(await h.probe.value(`SELECT COUNT(*) FROM tasks WHERE task_key = 'rk'`)).toBe(1);
  });

  it('same key dispatched twice in one group commit yields one row', async () => {
    const h = harness();
    h.engine.handle('Key.Job', () => undefined);
    const [a, b] = await Promise.all([
      h.engine.dispatch('Key.Job', {}, { taskKey: 'same' }),
      h.engine.dispatch('Key.Job', {}, { taskKey: 'same' }),
    ]);
    expect(a).toBe(b);
  });

  it('a running keyed row is returned unchanged', async () => {
    const h = harness();
    const gate = deferred();
    h.engine.handle('Key.Run', () => gate.promise);
    await h.engine.start();
    const a = await h.engine.dispatch('Key.Run', { v: 1 }, { taskKey: 'r' });
    await waitFor(async () => (await h.status(a)) === 'InProgress');
    expect(await h.engine.dispatch('Key.Run', { v: 2 }, { taskKey: 'r' })).toBe(a);
    expect((await h.row(a))['request']).toBe('{"v":1}');
    gate.resolve();
  });
});

describe('execution logs', () => {
  it('stores every level with sequence numbers and exception details, capped per run', async () => {
    const h = harness({ logCapPerRun: 5 });
    h.engine.handle('Log.Job', (_r, ctx) => {
      ctx.log.trace('t');
      ctx.log.debug('d');
      ctx.log.info('i');
      ctx.log.warn('w');
      ctx.log.error('e', new Error('bad thing'));
      for (let i = 0; i < 20; i++) ctx.log.info(`extra ${i}`);
    });
    await h.engine.start();
    const id = await h.engine.dispatch('Log.Job', {});
    await waitFor(async () => (await h.status(id)) === 'Completed');
    const logs = (await h.probe.rows('SELECT level, message, exception_details, sequence_number, timestamp FROM execution_logs WHERE task_id = ? ORDER BY sequence_number', id)) as { level: string; message: string; exception_details: string | null; sequence_number: number }[];
    expect(logs.map((l) => l.level)).toEqual(['Trace', 'Debug', 'Information', 'Warning', 'Error']);
    expect(logs.map((l) => l.sequence_number)).toEqual([1, 2, 3, 4, 5]);
    expect(logs[4]!.exception_details).toContain('bad thing');
    expect(logs[0]!.exception_details).toBeNull();
    await waitFor(async () => h.events.some((e) => e.kind === 'Completed'));
    expect(h.events.find((e) => e.kind === 'Completed')!.executionLogs).toHaveLength(5);
  });

  it('the default cap is 1,000 per run; numbering continues across recurring runs', async () => {
    const h = harness();
    h.engine.handle('Log.Many', (_r, ctx) => {
      for (let i = 0; i < 1200; i++) ctx.log.info(`line ${i}`);
    });
    h.engine.handle('Log.Rec', (_r, ctx) => ctx.log.info(`run ${ctx.runNumber}`));
    await h.engine.start();
    const id = await h.engine.dispatch('Log.Many', {});
    const rec = await h.engine.recurring('Log.Rec', {}, { every: 20, maxRuns: 3 });
    await waitFor(async () => (await h.status(id)) === 'Completed' && (await h.status(rec)) === 'Completed', 5000);
    expect((await h.probe.value('SELECT COUNT(*) FROM execution_logs WHERE task_id = ?', id))).toBe(1000);
    expect((await h.probe.values('SELECT sequence_number FROM execution_logs WHERE task_id = ? ORDER BY id', rec))).toEqual([1, 2, 3]);
  });
});

describe('audit levels', () => {
  it('Full records every transition, ErrorsOnly only those with error text, None nothing; engine default applies', async () => {
    const h = harness({ auditLevel: 'ErrorsOnly' });
    h.engine.handle('A.Ok', () => undefined);
    h.engine.handle('A.Fail', () => {
      throw new Error('fail');
    });
    await h.engine.start();
    const full = await h.engine.dispatch('A.Ok', {}, { auditLevel: 'Full' });
    const okDefault = await h.engine.dispatch('A.Ok', {});
    const failDefault = await h.engine.dispatch('A.Fail', {});
    const failNone = await h.engine.dispatch('A.Fail', {}, { auditLevel: 'None' });
    await waitFor(async () => (await h.statuses([full, okDefault, failDefault, failNone])).every((s) => ['Completed', 'Failed'].includes(s)));
    expect((await h.audits(full))).toEqual(['Queued', 'InProgress', 'Completed']);
    expect((await h.audits(okDefault))).toEqual([]);
    expect((await h.audits(failDefault))).toEqual(['Failed']);
    expect((await h.audits(failNone))).toEqual([]);
    expect((await h.row(okDefault))).toMatchObject({ audit_level: 'ErrorsOnly', status: 'Completed' });
    expect((await h.row(failNone))).toMatchObject({ audit_level: 'None', status: 'Failed' });
  });
});
