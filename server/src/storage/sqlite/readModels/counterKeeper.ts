import { fieldMayBeNull, type Counter, type CounterKey, type CounterSum } from '../../common/readModels/counters.js';
import { failureFingerprint } from '../functions/failureFingerprint.js';

/** One value of a read-model row. */
export type CounterValue = string | number | null;

/** The columns of a task row that place it in the read models' groups (the `moves` facts but status and n). */
export interface TaskGroup {
  queue: string;
  type: string;
  is_recurring: number;
  /** 1 when the row is an occurrence of a durable schedule (parent_task_id set). */
  is_occurrence: number;
  created_at: number;
}

/** One finished run (run_count went up by one): the `ran` facts, and the `failed` ones when it failed. */
export interface FinishedRunFacts {
  taskId: string;
  type: string;
  queue: string;
  /** last_execution_at after the run. */
  endedAt: number;
  outcome: string;
  /** execution_time_ms after the run (null: not measured). */
  executionTimeMs: number | null;
  /** The row's error text after the run (its fingerprint names the failure group). */
  exception: string | null;
}

/**
 * The counters of one description kept over one write transaction, added up per group in keyed
 * maps (a `moves` counter grouped by status keyed by status first, so that a status move builds
 * its other key parts once for both statuses).
 */
export interface CounterKeeper {
  /** `n` rows of group `g` entering (`n` < 0: leaving) status `status`. */
  count(g: TaskGroup, status: string, n: number): void;
  /** One row of group `g` left status `from` for `to`. */
  move(g: TaskGroup, from: string, to: string): void;
  /** A finished run. */
  ran(run: FinishedRunFacts): void;
  /** Whether no group was counted. */
  readonly empty: boolean;
  /** The groups of the description's counter `i` to write, in its column order (keys, then sums); a netted counter's all-zero groups left out. */
  rows(i: number): CounterValue[][];
  /** The greatest value of counter `i`'s first key counted (for a counter that keeps only the newest buckets); null when none. */
  newest(i: number): number | null;
}

/** The bucket SQL computes for `ms / size`: integer division for integers (as the rebuild queries do). */
export function bucketOf(ms: number, size: number): number {
  return Number.isInteger(ms) ? Math.trunc(ms / size) : ms / size;
}

/** How the generated code reads each source's field. */
const FIELDS: Record<Counter['source'], Record<string, { expr: string }>> = {
  moves: {
    queue: { expr: 'g.queue' }, type: { expr: 'g.type' }, status: { expr: 'S' }, is_recurring: { expr: 'g.is_recurring' },
    is_occurrence: { expr: 'g.is_occurrence' }, created_at: { expr: 'g.created_at' }, n: { expr: 'N' },
  },
  ran: {
    id: { expr: 'run.taskId' }, type: { expr: 'run.type' }, queue: { expr: 'run.queue' }, last_execution_at: { expr: 'run.endedAt' },
    last_outcome: { expr: 'run.outcome' }, execution_time_ms: { expr: 'run.executionTimeMs' }, exception: { expr: 'run.exception' },
  },
  failed: { id: { expr: 'run.taskId' }, type: { expr: 'run.type' }, last_execution_at: { expr: 'run.endedAt' }, fingerprint: { expr: 'fp' } },
};

/** A fact's field as the generated code reads it, and whether it may be null. */
function field(c: Counter, name: string): { expr: string; nullable: boolean } {
  const f = FIELDS[c.source][name];
  if (f === undefined) throw new Error(`counter ${c.table}: its source ${c.source} has no field ${name}`);
  return { expr: f.expr, nullable: fieldMayBeNull(c.source, name) };
}

const keyField = (k: CounterKey) => k.from ?? k.column;
/** Whether counter `c` is kept by status first (a moves counter grouped by status). */
const byStatus = (c: Counter) => c.source === 'moves' && c.keys.some((k) => keyField(k) === 'status');

/** A group's value before its first fact: a sum over no fact is null (0 when `empty` says so; 0 too when every fact adds a value). */
function initial(c: Counter, s: CounterSum): string {
  if (s.agg === 'count') return '0';
  if (s.agg === 'sum' && (s.empty !== undefined || (s.outcome === undefined && !fieldMayBeNull(c.source, s.of)))) return String(s.empty ?? 0);
  return 'null';
}

/** Where each `latest` sum keeps its greatest `by`: after the keys and sums, one slot per such sum. */
function bySlots(c: Counter): Map<number, number> {
  const slots = new Map<number, number>();
  c.sums.forEach((s, i) => {
    if (s.agg === 'latest') slots.set(i, c.keys.length + c.sums.length + slots.size);
  });
  return slots;
}

/**
 * The statements adding one fact to row `r` (sums at keys + i). Sums of the same outcome, and of
 * the same field that may be null, share their test: written once around them.
 */
function sumCode(c: Counter): string {
  const at = c.keys.length;
  const slots = bySlots(c);
  const blocks: { outcome: string | undefined; nullable: string | undefined; lines: string[] }[] = [];
  c.sums.forEach((s, i) => {
    const col = `r[${at + i}]`;
    const f = s.of === undefined ? undefined : field(c, s.of);
    const v = f === undefined ? '1' : f.nullable ? 'v' : f.expr;
    let line: string;
    switch (s.agg) {
      case 'sum': line = initial(c, s) === 'null' ? `${col} = ${col} === null ? ${v} : ${col} + ${v};` : `${col} += ${v};`; break;
      case 'count': line = `${col}++;`; break;
      case 'min': line = `if (${col} === null || ${v} < ${col}) ${col} = ${v};`; break;
      case 'max': line = `if (${col} === null || ${col} < ${v}) ${col} = ${v};`; break;
      case 'latest': {
        const b = `r[${slots.get(i)!}]`;
        line = `{ const by = ${field(c, s.by).expr}; if (${b} === null || ${b} < by || (by === ${b} && ${col} < ${v})) { ${col} = ${v}; ${b} = by; } }`;
        break;
      }
    }
    const nullable = f?.nullable ? f.expr : undefined;
    const last = blocks.at(-1);
    if (last !== undefined && last.outcome === s.outcome && last.nullable === nullable) last.lines.push(line);
    else blocks.push({ outcome: s.outcome, nullable, lines: [line] });
  });
  return blocks.map((b) => {
    let body = b.lines.join(' ');
    if (b.nullable !== undefined) body = `{ const v = ${b.nullable}; if (v !== null) { ${body} } }`;
    return b.outcome === undefined ? body : `if (run.outcome === ${JSON.stringify(b.outcome)}) { ${body} }`;
  }).join('\n');
}

/**
 * The code counting one fact into counter `i`. `prep` holds the key parts that do not depend on
 * the status (computed once per fact, or once per move for both statuses): k<i> the map key,
 * b<i>_<j> each bucketed key's value.
 */
function counterCode(c: Counter, i: number): { prep: string; add: string } {
  const parts: string[] = [];
  const values = c.keys.map((k, j) => {
    const f = field(c, keyField(k));
    if (k.bucketMs === undefined) return f.expr;
    if (f.nullable) throw new Error(`counter ${c.table}: bucketed key ${k.column} reads ${keyField(k)}, which may be null`);
    parts.push(`const b${i}_${j} = bucketOf(${f.expr}, ${k.bucketMs});`);
    return `b${i}_${j}`;
  });
  const keyed = c.keys.map((k, j) => [k, values[j]!] as const).filter(([k]) => !(byStatus(c) && keyField(k) === 'status'));
  if (keyed.some(([k]) => c.source === 'moves' && keyField(k) === 'n')) throw new Error(`counter ${c.table}: n is not a group key`);
  parts.push(`const k${i} = ${keyed.length === 0 ? "''" : keyed.map(([, v]) => v).join(" + '\\u0000' + ")};`);
  const fresh = `[${[...values, ...c.sums.map((x) => initial(c, x)), ...[...bySlots(c)].map(() => 'null')].join(', ')}]`;
  const map = byStatus(c)
    ? `let m = this.m${i}.get(S); if (m === undefined) this.m${i}.set(S, m = new Map());`
    : `const m = this.m${i};`;
  const newest = c.keep === undefined ? '' : `if (this.n${i} === null || this.n${i} < ${values[0]}) this.n${i} = ${values[0]};`;
  return { prep: parts.join('\n'), add: `{ ${map} let r = m.get(k${i}); if (r === undefined) m.set(k${i}, r = ${fresh}); ${sumCode(c)} ${newest} }` };
}

type KeeperClass = new () => CounterKeeper;

/**
 * The source of a keeper class for `counters`: one map per counter, and per source one method
 * whose body counts a fact into each of that source's counters, written out counter by counter
 * (no loop over the description, no per-fact interpretation of it).
 */
export function counterKeeperSource(counters: readonly Counter[]): string {
  const code = counters.map((c, i) => ({ c, i, ...counterCode(c, i) }));
  const of = (source: Counter['source']) => code.filter((x) => x.c.source === source);
  const moves = of('moves');
  const failed = of('failed');
  const ran = of('ran');
  return `return class CounterKeeper {
  constructor() { ${counters.map((c, i) => `this.m${i} = new Map();${c.keep === undefined ? '' : ` this.n${i} = null;`}`).join(' ')} }
  count(g, S, N) {
    ${moves.map((x) => `${x.prep}\n${x.add}`).join('\n')}
  }
  move(g, from, to) {
    ${moves.map((x) => x.prep).join('\n')}
    let S = from, N = -1;
    ${moves.map((x) => x.add).join('\n')}
    S = to; N = 1;
    ${moves.map((x) => x.add).join('\n')}
  }
  ran(run) {
    ${ran.map((x) => `${x.prep}\n${x.add}`).join('\n')}
    ${failed.length === 0 ? '' : `if (run.outcome === 'Failed') { const fp = fingerprint(run.exception);\n${failed.map((x) => `${x.prep}\n${x.add}`).join('\n')} }`}
  }
  get empty() { return ${counters.length === 0 ? 'true' : counters.map((_, i) => `this.m${i}.size === 0`).join(' && ')}; }
  groups(i) {
    const m = this['m' + i];
    if (!${JSON.stringify(counters.map(byStatus))}[i]) return [...m.values()];
    const out = [];
    for (const x of m.values()) for (const r of x.values()) out.push(r);
    return out;
  }
  newest(i) { return this['n' + i] ?? null; }
};`;
}

const compiled = new WeakMap<readonly Counter[], KeeperClass>();

/**
 * A keeper of `counters`, its class generated once per description (the engine's group commit
 * counts thousands of facts per transaction: each counter's code is written out for it).
 */
export function counterKeeper(counters: readonly Counter[]): CounterKeeper {
  let Keeper = compiled.get(counters);
  if (Keeper === undefined) {
    const make = new Function('bucketOf', 'fingerprint', counterKeeperSource(counters)) as (b: typeof bucketOf, f: typeof failureFingerprint) => new () => KeeperBase;
    const Generated = make(bucketOf, failureFingerprint);
    Keeper = class extends Generated implements CounterKeeper {
      rows(i: number): CounterValue[][] {
        const c = counters[i]!;
        const width = c.keys.length + c.sums.length;
        const out: CounterValue[][] = [];
        for (const r of this.groups(i)) {
          if (c.netted && !r.slice(c.keys.length, width).some((v) => v !== 0 && v !== null)) continue;
          out.push(r.length === width ? r : r.slice(0, width));
        }
        return out;
      }
    };
    compiled.set(counters, Keeper);
  }
  return new Keeper();
}

/** What the generated class has before `rows` is added to it. */
interface KeeperBase extends Omit<CounterKeeper, 'rows'> {
  groups(i: number): CounterValue[][];
}
