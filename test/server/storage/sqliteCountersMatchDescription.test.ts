import { describe, expect, it } from 'vitest';
import { COUNTERS, type Counter, type CounterSum } from '../../../server/src/storage/common/readModels/counters.js';
import { failureFingerprint } from '../../../server/src/storage/sqlite/functions/failureFingerprint.js';
import { bucketOf, counterKeeperSource } from '../../../server/src/storage/sqlite/readModels/counterKeeper.js';
import { ReadModelDeltas, type FinishedRunFacts, type TaskGroup } from '../../../server/src/storage/sqlite/readModels/readModelDeltas.js';
import { FIXTURE_COUNTERS } from '../../fixtures/server/fixtureCounters.js';
import { seededRandom } from '../../chaos/seededRandom.js';

// SQLite keeps the description's counters with code generated from it (counterKeeper.ts: one
// method per source, each counter's statements written out). Fed random status moves, new rows
// and finished runs, what it holds for every counter, the description's own and a fixture's added
// ones, equals a recomputation: the facts listed one by one and each counter's entry followed
// literally (group by its keys, aggregate by its sums).

type Value = string | number | null;
type Fact = Readonly<Record<string, Value>>;
const sorted = (rows: Value[][]) => rows.map((r) => JSON.stringify(r)).sort();
const less = (a: Value, b: Value) => (a as number | string) < (b as number | string);

/** Counter `c` recomputed from its source's facts, entry followed literally: one row per group, keys then sums. */
function recount(c: Counter, facts: Record<Counter['source'], Fact[]>): Value[][] {
  const groups = new Map<string, { keys: Value[]; sums: Value[]; by: Value[] }>();
  const initial = (s: CounterSum): Value => (s.agg === 'count' ? 0 : s.agg === 'sum' && s.empty !== undefined ? s.empty : null);
  for (const f of facts[c.source]) {
    const keys = c.keys.map((k) => {
      const v = f[k.from ?? k.column] ?? null;
      return k.bucketMs === undefined || v === null ? v : bucketOf(v as number, k.bucketMs);
    });
    const id = JSON.stringify(keys);
    let g = groups.get(id);
    if (g === undefined) groups.set(id, (g = { keys, sums: c.sums.map(initial), by: c.sums.map(() => null) }));
    c.sums.forEach((s, i) => {
      if (s.outcome !== undefined && f['last_outcome'] !== s.outcome) return;
      const v = s.of === undefined ? 1 : (f[s.of] ?? null);
      if (v === null) return;
      const was = g.sums[i]!;
      if (s.agg === 'sum') g.sums[i] = ((was as number | null) ?? 0) + (v as number);
      else if (s.agg === 'count') g.sums[i] = (was as number) + 1;
      else if (s.agg === 'min') { if (was === null || less(v, was)) g.sums[i] = v; }
      else if (s.agg === 'max') { if (was === null || less(was, v)) g.sums[i] = v; }
      else if (s.agg === 'latest') {
        const by = f[s.by] ?? null;
        if (g.by[i] === null || less(g.by[i]!, by) || (by === g.by[i] && less(was, v))) {
          g.sums[i] = v;
          g.by[i] = by;
        }
      }
    });
  }
  return [...groups.values()].filter((g) => !c.netted || g.sums.some((v) => v !== 0 && v !== null)).map((g) => [...g.keys, ...g.sums]);
}

/** Random changes recorded through ReadModelDeltas, and the same changes as a list of facts per source. */
function workload(seed: number, description: readonly Counter[]) {
  const random = seededRandom(seed).next;
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
  const d = new ReadModelDeltas(description);
  d.checkTransitions = false;
  const facts: Record<Counter['source'], Fact[]> = { moves: [], ran: [], failed: [] };
  const move = (g: TaskGroup, status: string, n: number) => facts.moves.push({ ...g, status, n });
  const statuses = ['Pending', 'Queued', 'InProgress', 'Completed', 'Failed', 'Cancelled', 'WaitingQueue'];
  let t = 1_700_000_000_000;
  for (let i = 0; i < 3000; i++) {
    const g: TaskGroup = {
      queue: pick(['default', 'mail', 'bulk']), type: pick(['A', 'B', 'C']), is_recurring: pick([0, 1]), is_occurrence: pick([0, 1]),
      created_at: t - Math.floor(random() * 3 * 86_400_000),
    };
    const what = random();
    if (what < 0.3) {
      const n = 1 + Math.floor(random() * 3);
      d.insertedCompact({ ...g, handler: 'h' }, n);
      move(g, 'Pending', n);
    } else if (what < 0.6) {
      const [from, to] = [pick(statuses), pick(statuses)];
      d.moved(g, from, to);
      if (from !== to) {
        move(g, from, -1);
        move(g, to, 1);
      }
    } else if (what < 0.65) {
      const [from, to, after] = [pick(statuses), pick(statuses), { ...g, type: pick(['A', 'B', 'C']) }];
      d.regrouped(g, from, { ...after, handler: 'h' }, to);
      move(g, from, -1);
      move(after, to, 1);
    } else {
      // Runs end in the same millisecond now and then: the latest of a group is then the greatest id.
      if (random() < 0.8) t += 1 + Math.floor(random() * 600_000);
      const run: FinishedRunFacts = {
        taskId: `t${Math.floor(random() * 5000)}`, type: g.type, queue: g.queue, endedAt: t, outcome: pick(['Completed', 'Failed', 'Completed', 'Cancelled']),
        executionTimeMs: pick([null, 0, 1.5, 12, 250]), exception: pick([null, 'Error: order 12 rejected', 'Timeout after 30 s']),
      };
      d.ran(run);
      const fact = {
        id: run.taskId, type: run.type, queue: run.queue, last_execution_at: run.endedAt, last_outcome: run.outcome,
        execution_time_ms: run.executionTimeMs, exception: run.exception,
      };
      facts.ran.push(fact);
      if (run.outcome === 'Failed') facts.failed.push({ id: run.taskId, type: run.type, last_execution_at: run.endedAt, fingerprint: failureFingerprint(run.exception) });
    }
  }
  return { d, facts };
}

describe('SQLite keeps the counters by code generated from the description', () => {
  it.each([
    ['the description', 1, COUNTERS],
    ['the description', 2, COUNTERS],
    ['the description and a fixture\'s added counters', 3, [...COUNTERS, ...FIXTURE_COUNTERS]],
  ] as const)('%s (seed %i): every counter equals a recomputation from the facts', (_name, seed, description) => {
    const { d, facts } = workload(seed, description);
    description.forEach((c, i) => {
      const kept = d.counters.rows(i);
      expect(kept.length, c.table).toBeGreaterThan(3);
      expect(sorted(kept), c.table).toEqual(sorted(recount(c, facts)));
    });
  });

  it('the throughput counter keeps its newest bucket, for the older ones to be dropped', () => {
    const { d, facts } = workload(4, COUNTERS);
    const i = COUNTERS.findIndex((c) => c.keep !== undefined);
    const newest = Math.max(...facts.ran.map((f) => bucketOf(f.last_execution_at as number, COUNTERS[i]!.keys[0]!.bucketMs!)));
    expect(d.counters.newest(i)).toBe(newest);
  });

  it('the generated code reads no description at run time: one block per counter, written out', () => {
    const source = counterKeeperSource(COUNTERS);
    for (const [i] of COUNTERS.entries()) expect(source).toContain(`this.m${i}`);
    expect(source).not.toMatch(/counters\[|\.sums|\.keys/);
  });
});
