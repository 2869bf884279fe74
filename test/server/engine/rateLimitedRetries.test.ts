import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, harness } from '../../fixtures/server/engineHarness.js';
import { waitFor } from '../../fixtures/waitFor.js';

afterEach(closeAll);

describe('retries honour rate limits', () => {
  it('a limit of 2 per second and a handler that fails twice: never more than 2 starts in any second', async () => {
    const h = harness();
    const retryStarts: number[] = [];
    const attempts = new Map<string, number>();
    h.engine.handle('Limited.Flaky', (_req, ctx) => {
      const n = (attempts.get(ctx.taskId) ?? 0) + 1;
      if (n > 1) retryStarts.push(Date.now());
      attempts.set(ctx.taskId, n);
      if (n <= 2) throw new Error(`downstream refused attempt ${n}`);
    }, { rateLimit: { limit: 2, windowMs: 1000 }, retry: { attempts: 3, backoffMs: 20, backoff: 'fixed' } });
    await h.engine.start();
    const ids = await Promise.all([0, 1, 2].map((i) => h.engine.dispatch('Limited.Flaky', { i })));
    await waitFor(async () => (await h.statuses(ids)).every((s) => s === 'Completed'), 15_000, 'every task Completed after its retries');
    // The starts as the window counts them: a first attempt when its row was taken (reserved_at; its
    // handler begins after that commit), a retry when its backoff ended and it began (one turn).
    const taken = (await Promise.all(ids.map((id) => h.row(id)))).map((r) => Number(r.reserved_at));
    const starts = [...taken, ...retryStarts];
    expect(starts).toHaveLength(9);
    // Every sliding second (from each start) holds at most 2 starts. (Retries that skip the window
    // start 20 ms after their failure: 6 or more starts in the first second.) A retry is timed where
    // its handler begins, which trails the instant its window counted by the machine's scheduling
    // delay: the window checked is that much shorter than a second.
    const SCHEDULING_SLACK_MS = 150;
    for (const t of starts) expect(starts.filter((x) => x >= t && x < t + 1000 - SCHEDULING_SLACK_MS).length).toBeLessThanOrEqual(2);
  }, 20_000);
});
