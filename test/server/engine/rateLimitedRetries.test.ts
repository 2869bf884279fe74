import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, harness, waitFor } from './helpers.js';

afterEach(closeAll);

describe('retries honour rate limits', () => {
  it('a limit of 2 per second and a handler that fails twice: never more than 2 starts in any second', async () => {
    const h = harness();
    const starts: number[] = [];
    const attempts = new Map<string, number>();
    h.engine.handle('Limited.Flaky', (_req, ctx) => {
      starts.push(Date.now());
      const n = (attempts.get(ctx.taskId) ?? 0) + 1;
      attempts.set(ctx.taskId, n);
      if (n <= 2) throw new Error(`downstream refused attempt ${n}`);
    }, { rateLimit: { limit: 2, windowMs: 1000 }, retry: { attempts: 3, backoffMs: 20, backoff: 'fixed' } });
    await h.engine.start();
    const ids = await Promise.all([0, 1, 2].map((i) => h.engine.dispatch('Limited.Flaky', { i })));
    await waitFor(async () => (await h.statuses(ids)).every((s) => s === 'Completed'), 15_000, 'every task Completed after its retries');
    expect(starts).toHaveLength(9);
    // Every sliding second (from each start) holds at most 2 starts. A start is counted when it is
    // decided (the claim's commit, the end of a backoff) and its handler begins a few ms later, so
    // the windows measured at the handlers are taken 50 ms short. (Retries that skip the window
    // start 20 ms after their failure: 6 or more starts in the first second.)
    for (const t of starts) expect(starts.filter((x) => x >= t && x < t + 950).length).toBeLessThanOrEqual(2);
  }, 20_000);
});
