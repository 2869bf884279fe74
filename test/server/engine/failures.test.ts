import { afterEach, describe, expect, it } from 'vitest';
import { backoffDelay, resolveRetryPolicy, NO_RETRY } from '../../../server/src/engine/RetryPolicy.js';
import { closeAll, harness } from '../../fixtures/server/engineHarness.js';
import { waitFor } from '../../fixtures/waitFor.js';

afterEach(closeAll);

describe('retries, backoff and timeouts', () => {
  it('retries stay InProgress, keep the last error, then Completed; backoff is respected', async () => {
    const h = harness();
    const times: number[] = [];
    h.engine.handle('Flaky.Job', (_req, ctx) => {
      times.push(Date.now());
      if (ctx.attempt < 3) throw new Error(`flake ${ctx.attempt}`);
    });
    await h.engine.start();
    const id = await h.engine.dispatch('Flaky.Job', {}, { retry: { attempts: 3, backoffMs: 40, backoff: 'fixed' } });
    await waitFor(async () => (await h.status(id)) === 'InProgress' && ((await h.row(id))['attempt'] as number) >= 1);
    // The failed attempt and its error are written together (under load the second attempt may
    // already have failed by now: read both from the same row).
    const during = (await h.row(id));
    expect(during['exception']).toContain(`flake ${during['attempt'] as number}`);
    await waitFor(async () => (await h.status(id)) === 'Completed');
    expect(times).toHaveLength(3);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(38);
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(38);
    expect((await h.audits(id))).toEqual(['Queued', 'InProgress', 'Completed']);
    expect((await h.row(id))).toMatchObject({ run_count: 1, last_outcome: 'Completed', attempt: 2 });
    const logs = (await h.probe.rows('SELECT level, message FROM execution_logs WHERE task_id = ? ORDER BY sequence_number', id));
    expect(logs).toHaveLength(2);
    expect(logs[0]).toMatchObject({ level: 'Warning' });
    // the event follows the commit that wrote the end (with a networked store, a later tick)
    await waitFor(async () => h.events.some((e) => e.taskId === id && e.kind === 'Completed'));
    expect(h.events.filter((e) => e.taskId === id).map((e) => e.kind)).toEqual(['Started', 'Completed']);
  });

  it('retries exhausted → Failed with the last error text', async () => {
    const h = harness({ retry: { attempts: 2, backoffMs: 5, backoff: 'fixed' } });
    let calls = 0;
    h.engine.handle('Bad.Job', () => {
      calls++;
      throw new Error(`nope ${calls}`);
    });
    await h.engine.start();
    const id = await h.engine.dispatch('Bad.Job', {});
    await waitFor(async () => (await h.status(id)) === 'Failed');
    expect(calls).toBe(2);
    expect((await h.auditRows(id)).at(-1)!.exception).toContain('nope 2');
  });

  it('exponential backoff doubles, is capped, and jitter only shortens', () => {
    const p = resolveRetryPolicy({ attempts: 5, backoffMs: 100, backoff: 'exponential', maxBackoffMs: 350, jitter: 0 }, NO_RETRY, 'retry');
    expect([1, 2, 3, 4].map((n) => backoffDelay(p, n))).toEqual([100, 200, 350, 350]);
    const j = resolveRetryPolicy({ attempts: 5, backoffMs: 1000, jitter: 0.5 }, NO_RETRY, 'retry');
    const delays = Array.from({ length: 50 }, () => backoffDelay(j, 2));
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(1000);
    expect(Math.max(...delays)).toBeLessThanOrEqual(2000);
    expect(new Set(delays).size).toBeGreaterThan(1);
    expect(backoffDelay(j, 2, () => 1)).toBe(1000);
  });

  it('timeout aborts ctx.signal, emits Timeout, then fails (execution time 0)', async () => {
    const h = harness();
    let aborted: unknown;
    h.engine.handle('Slow.Job', (_req, ctx) =>
      new Promise<void>((resolve) => {
        ctx.signal.addEventListener('abort', () => {
          aborted = ctx.signal.reason;
          resolve();
        });
      }),
    );
    await h.engine.start();
    const id = await h.engine.dispatch('Slow.Job', {}, { timeoutMs: 50 });
    await waitFor(async () => (await h.status(id)) === 'Failed');
    expect((aborted as Error).name).toBe('TaskTimeoutError');
    expect((await h.row(id))['execution_time_ms']).toBe(0);
    expect((await h.auditRows(id)).at(-1)!.exception).toContain('timed out after 50 ms');
    await waitFor(async () => h.events.some((e) => e.kind === 'Failed'));
    const kinds = h.events.filter((e) => e.taskId === id).map((e) => e.kind);
    expect(kinds).toEqual(['Started', 'Timeout', 'Failed']);
    expect(h.events.find((e) => e.kind === 'Timeout')!.severity).toBe('Warning');
  });

  it('a timed-out attempt with retries left is retried', async () => {
    const h = harness();
    h.engine.handle('Slow.Then.Fast', (_req, ctx) => (ctx.attempt === 1 ? new Promise(() => undefined) : undefined), {
      timeoutMs: 30,
      retry: { attempts: 2, backoffMs: 1, backoff: 'fixed' },
    });
    await h.engine.start();
    const id = await h.engine.dispatch('Slow.Then.Fast', {});
    // The event follows the commit that wrote the row (a later tick on a deferred or networked
    // store): wait for the event, then read the row.
    await waitFor(() => h.events.some((e) => e.taskId === id && e.kind === 'Completed'), 5000, 'the Completed event');
    expect(await h.status(id)).toBe('Completed');
    expect(h.events.filter((e) => e.taskId === id).map((e) => e.kind)).toEqual(['Started', 'Timeout', 'Completed']);
  });
});
