import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, harness } from '../../fixtures/server/engineHarness.js';
import { waitFor } from '../../fixtures/waitFor.js';

// A queue runs its tasks oldest created first; tasks created in the same millisecond run in the
// order they were dispatched. The stored rows are shuffled first: each task is due at another
// instant, the last dispatched first, so the promotion that makes them Queued writes them in
// reverse order (on PostgreSQL, new row versions in that order, which an index scan over equal
// creation times meets first).

afterEach(closeAll);

describe('claim order', () => {
  it('tasks created in one millisecond run in dispatch order, whatever order they became due in', async () => {
    const T0 = Date.parse('2026-05-04T08:00:00.000Z');
    let now = T0;
    const h = harness({ clock: () => now, queues: { default: { concurrency: 1 } } });
    const ran: number[] = [];
    h.engine.handle('Order.Step', (req: { n: number }) => {
      ran.push(req.n);
    });
    await h.engine.start();
    const n = 12;
    const ids: string[] = [];
    // Dispatched one after another (one insert each) at one clock reading; the last one is due first.
    for (let i = 0; i < n; i++) ids.push(await h.engine.dispatch('Order.Step', { n: i }, { runAt: T0 + 1000 * (n - i) }));
    expect(new Set((await Promise.all(ids.map((id) => h.row(id)))).map((r) => Number(r.created_at)))).toEqual(new Set([T0]));
    // All are due now: one promotion walks them by due time, the last dispatched first.
    now = T0 + 1000 * (n + 1);
    await waitFor(async () => (await h.statuses(ids)).every((s) => s === 'Completed'), 10_000, 'every task Completed');
    expect(ran).toEqual(Array.from({ length: n }, (_, i) => i));
  });
});
