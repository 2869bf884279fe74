import { afterEach, describe, expect, it } from 'vitest';
import type { TaskContext } from '../../../server/src/index.js';
import { closeAll, deferred, harness } from '../../fixtures/server/engineHarness.js';
import { waitFor } from '../../fixtures/waitFor.js';

afterEach(closeAll);

describe('ctx.signal', () => {
  it('read only after a cancel, it is already aborted with the cancel reason', async () => {
    const h = harness();
    const running = deferred();
    const release = deferred();
    let seen: { aborted: boolean; reason: unknown } | undefined;
    h.engine.handle('S.Late', async (_req, ctx: TaskContext) => {
      running.resolve();
      await release.promise;
      seen = { aborted: ctx.signal.aborted, reason: ctx.signal.reason };
    });
    await h.engine.start();
    const id = await h.engine.dispatch('S.Late', {});
    await running.promise;
    expect(await h.engine.cancel(id)).toBe('Cancelling');
    release.resolve();
    await waitFor(async () => (await h.status(id)) === 'Cancelled');
    expect(seen?.aborted).toBe(true);
    expect((seen?.reason as Error).message).toBe('The task was cancelled');
  });

  it('read at the start, it aborts when the run times out', async () => {
    const h = harness();
    let reason: unknown;
    h.engine.handle('S.Early', (_req, ctx: TaskContext) => new Promise<void>((resolve) => {
      ctx.signal.addEventListener('abort', () => {
        reason = ctx.signal.reason;
        resolve();
      });
    }));
    await h.engine.start();
    const id = await h.engine.dispatch('S.Early', {}, { timeoutMs: 30, retry: { attempts: 1 } });
    await waitFor(async () => (await h.status(id)) === 'Failed');
    expect((reason as Error).message).toBe('The task timed out after 30 ms');
  });

  it('each attempt has a signal of its own: the retry after a timed-out attempt starts unaborted', async () => {
    const h = harness();
    const seen: boolean[] = [];
    h.engine.handle('S.Retry', (_req, ctx: TaskContext) => {
      seen.push(ctx.signal.aborted);
      if (ctx.attempt === 1) return new Promise<void>(() => undefined);
      return undefined;
    });
    await h.engine.start();
    const id = await h.engine.dispatch('S.Retry', {}, { timeoutMs: 30, retry: { attempts: 2, backoffMs: 1 } });
    await waitFor(async () => (await h.status(id)) === 'Completed');
    expect(seen).toEqual([false, false]);
  });
});
