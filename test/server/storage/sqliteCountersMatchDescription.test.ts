import { describe, expect, it } from 'vitest';
import { COUNTERS } from '../../../server/src/storage/common/readModels/counters.js';
import type { CounterAccumulator } from '../../../server/src/storage/sqlite/readModels/counterAccumulator.js';
import { HAND_KEPT } from '../../../server/src/storage/sqlite/readModels/keptCounters.js';
import { ReadModelDeltas, type TaskGroup } from '../../../server/src/storage/sqlite/readModels/readModelDeltas.js';

// SQLite keeps the description's built-in counters in hand-shaped maps (ReadModelDeltas: keyed
// maps, status first) for the group commit's speed. Fed the same changes, those maps must hold what
// accumulators built from the description's entries hold: the hand-kept counters are the
// description's, group for group and column for column.

/** Deterministic PRNG (mulberry32) so a failure can be replayed. */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Row = (string | number | null)[];
const sorted = (rows: Row[]) => rows.map((r) => JSON.stringify(r)).sort();
const byStatus = <V>(m: ReadonlyMap<string, ReadonlyMap<string, V>>) => [...m.values()].flatMap((x) => [...x.values()]);

/** The rows ReadModelDeltas would write for one hand-kept table, in the description's column order. */
function handRows(d: ReadModelDeltas, table: string): Row[] {
  switch (table) {
    case 'stat_tasks': return byStatus(d.tasks).filter((t) => t[5] !== 0).map((t) => [t[0], t[1], t[2], t[3], t[4], t[5]]);
    case 'stat_created_hour': return byStatus(d.createdHour).filter((c) => c[3] !== 0).map((c) => [...c]);
    case 'stat_created_day': return byStatus(d.createdDay).filter((c) => c[3] !== 0).map((c) => [...c]);
    case 'stat_runs_hour':
    case 'stat_runs_day':
      return [...(table === 'stat_runs_hour' ? d.runsHour : d.runsDay).values()]
        .map((b) => [b.bucket, b.type, b.queue, b.completed, b.failed, b.dur_sum, b.dur_count, b.dur_min, b.dur_max]);
    case 'failure_groups_hour':
    case 'failure_groups_day':
      return [...(table === 'failure_groups_hour' ? d.failuresHour : d.failuresDay).values()]
        .map((g) => [g.bucket, g.type, g.fingerprint, g.n, g.first_seen, g.last_seen, g.sample_task_id]);
    case 'stat_queue_finished_10s': return [...d.throughput.values()].map((t) => [...t]);
    default: throw new Error(`not hand-kept: ${table}`);
  }
}

describe('SQLite hand-kept counters match the description', () => {
  it('the hand-kept tables are the description\'s counters', () => {
    expect([...HAND_KEPT].sort()).toEqual(COUNTERS.map((c) => c.table).filter((t) => HAND_KEPT.has(t)).sort());
    expect(HAND_KEPT.size).toBe(COUNTERS.length);
  });

  it.each([1, 2, 3])('moves and runs recorded in the maps equal accumulators built from the entries (seed %i)', (seed) => {
    const random = rng(seed);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
    const d = new ReadModelDeltas(COUNTERS);
    d.checkTransitions = false;
    const statuses = ['Pending', 'Queued', 'InProgress', 'Completed', 'Failed', 'Cancelled', 'WaitingQueue'];
    let t = 1_700_000_000_000;
    for (let i = 0; i < 3000; i++) {
      const g: TaskGroup = {
        queue: pick(['default', 'mail', 'bulk']), type: pick(['A', 'B', 'C']), is_recurring: pick([0, 1]), is_occurrence: pick([0, 1]),
        created_at: t - Math.floor(random() * 3 * 86_400_000),
      };
      const what = random();
      if (what < 0.3) d.insertedCompact({ ...g, handler: 'h' }, 1 + Math.floor(random() * 3));
      else if (what < 0.6) d.moved(g, pick(statuses), pick(statuses));
      else if (what < 0.65) d.regrouped(g, pick(statuses), { ...g, type: pick(['A', 'B', 'C']), handler: 'h' }, pick(statuses));
      else {
        t += 1 + Math.floor(random() * 600_000);
        d.ran({
          taskId: `t${i}`, type: g.type, queue: g.queue, endedAt: t, outcome: pick(['Completed', 'Failed', 'Completed']),
          executionTimeMs: pick([null, 0, 1.5, 12, 250]), exception: pick([null, 'Error: order 12 rejected', 'Timeout after 30 s']),
        });
      }
    }
    const acc = d.accumulated!;
    const accumulators: CounterAccumulator[] = [...acc.moves, ...acc.ran, ...acc.failed];
    expect(accumulators.map((a) => a.counter.table).sort()).toEqual(COUNTERS.map((c) => c.table).sort());
    for (const a of accumulators) {
      const hand = handRows(d, a.counter.table);
      expect(hand.length, a.counter.table).toBeGreaterThan(3);
      expect(sorted(hand), a.counter.table).toEqual(sorted(a.rows()));
    }
  });
});
