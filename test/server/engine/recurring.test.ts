import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, harness } from '../../fixtures/server/engineHarness.js';
import { waitFor } from '../../fixtures/waitFor.js';

afterEach(closeAll);

describe('inline recurring tasks', () => {
  it('runs every interval, writes one runs_audit row per run, goes on after a failed run, Completed after maxRuns', async () => {
    const h = harness();
    h.engine.handle('Reports.Ping', (_req, ctx) => {
      if (ctx.runNumber === 2) throw new Error('second run fails');
    });
    await h.engine.start();
    const id = await h.engine.recurring('Reports.Ping', {}, { every: 30, maxRuns: 4 });
    // The row is created Pending; its status itself may already have moved on a busy machine
    // (the first run is due 30 ms later), so read the first audit entry instead.
    expect((await h.auditRows(id))[0]!.new_status).toBe('Pending');
    expect((await h.row(id))['is_recurring']).toBe(1);
    await waitFor(async () => (await h.status(id)) === 'Completed', 5000);
    const runs = (await h.probe.rows('SELECT status, execution_time_ms, exception, executed_at FROM runs_audit WHERE task_id = ? ORDER BY id', id)) as {
      status: string; execution_time_ms: number; exception: string | null; executed_at: number;
    }[];
    expect(runs.map((r) => r.status)).toEqual(['Completed', 'Failed', 'Completed', 'Completed']);
    expect(runs[1]!.execution_time_ms).toBe(0);
    expect(runs[1]!.exception).toContain('second run fails');
    const row = (await h.row(id));
    expect(row).toMatchObject({ run_count: 4, last_outcome: 'Completed', status: 'Completed' });
    expect(row['last_execution_at']).toBe(runs[3]!.executed_at);
    const audits = (await h.auditRows(id));
    expect(audits.map((a) => a.new_status)).toEqual([
      'Pending', 'Queued', 'InProgress', 'Pending', 'Queued', 'InProgress', 'Pending', 'Queued', 'InProgress', 'Pending',
      'Queued', 'InProgress', 'Completed',
    ]);
    expect(audits[6]!.exception).toContain('second run fails');
    // events follow the commit that wrote the end (with a networked store, a later tick)
    await waitFor(async () => h.events.filter((e) => e.kind !== 'Started').length >= 4);
    const kinds = h.events.filter((e) => e.kind !== 'Started').map((e) => e.kind);
    expect(kinds).toEqual(['Completed', 'Failed', 'Completed', 'Completed']);
  });

  it('ErrorsOnly records failed runs only; None records nothing', async () => {
    const h = harness();
    h.engine.handle('Rec.Mixed', (_r, ctx) => {
      if (ctx.runNumber % 2 === 0) throw new Error('even');
    });
    await h.engine.start();
    const errorsOnly = await h.engine.recurring('Rec.Mixed', {}, { every: 20, maxRuns: 4, auditLevel: 'ErrorsOnly' });
    const none = await h.engine.recurring('Rec.Mixed', {}, { every: 20, maxRuns: 4, auditLevel: 'None' });
    await waitFor(async () => (await h.status(errorsOnly)) === 'Completed' && (await h.status(none)) === 'Completed', 5000);
    const runs = async (id: string) => (await h.probe.values('SELECT status FROM runs_audit WHERE task_id = ?', id));
    expect(await runs(errorsOnly)).toEqual(['Failed', 'Failed']);
    expect(await runs(none)).toEqual([]);
    // Runs 2 and 4 fail: after run 2 the series goes on (Pending), after run 4 it ends (Completed).
    expect((await h.audits(errorsOnly))).toEqual(['Pending', 'Completed']);
    expect((await h.audits(none))).toEqual([]);
  });

  it('cron with a time zone, until: the first due time is the next cron slot', async () => {
    const h = harness();
    h.engine.handle('Cron.Job', () => undefined);
    const id = await h.engine.recurring('Cron.Job', {}, { cron: '0 2 * * *', timeZone: 'Europe/Rome' });
    const due = (await h.row(id))['scheduled_at'] as number;
    const local = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Rome', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(due);
    expect(local).toBe('02:00');
    expect(due).toBeGreaterThan(Date.now());
    expect(JSON.parse((await h.row(id))['recurrence'] as string)).toMatchObject({ cron: '0 2 * * *', timeZone: 'Europe/Rome' });
  });

  it('a series whose until passes ends Completed after its last run', async () => {
    const h = harness();
    h.engine.handle('Until.Job', () => undefined);
    await h.engine.start();
    // Slots at +1 s and +2 s; +3 s is past until. A run ending after the next slot skips it
    // (fixed rate), so the interval leaves a loaded machine a second per run.
    const id = await h.engine.recurring('Until.Job', {}, { every: 1000, until: Date.now() + 2500 });
    await waitFor(async () => (await h.status(id)) === 'Completed', 10_000);
    expect((await h.row(id))['run_count']).toBe(2);
  });
});
