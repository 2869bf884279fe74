// `npm run bench:compare [-- --history file] [--base label] [--head label]`: each bench's newest
// line of the history against the line before it (of the same bench, quick or full alike), or
// against the line labelled --base run closest in time to it (before or after: a sitting alternates). A figure more than 25 % worse is marked: a ratio to a
// peer or floor of the same run as WORSE (the exit status is then 1), an absolute figure as
// WORSE (noisy) (it moves with the machine too; the exit status stays 0), a count that must be
// 0 (lost, duplicates) as FAIL whenever it is not (exit status 1).
import { parseArgs } from 'node:util';
import { BENCHES, benchNamed } from './benches.js';
import type { Figure } from './figures.js';
import { DEFAULT_HISTORY, figureOf, readHistory, showFigure, type HistoryLine } from './history.js';

/** Worse by more than this fraction of the earlier figure: marked. */
export const WORSE_THRESHOLD = 0.25;

export interface FigureComparison {
  bench: string;
  figure: Figure;
  before?: number;
  now?: number;
  /** Signed fraction: positive = worse. */
  worseBy?: number;
  mark: '' | 'WORSE' | 'WORSE (noisy)' | 'FAIL';
}

export interface BenchComparison {
  bench: string;
  now: HistoryLine;
  before?: HistoryLine;
  figures: FigureComparison[];
}

function judge(figure: Figure, before: number | undefined, now: number | undefined): Pick<FigureComparison, 'worseBy' | 'mark'> {
  if (now === undefined) return { mark: '' };
  if (figure.kind === 'zero') return { mark: now !== 0 ? 'FAIL' : '' };
  if (before === undefined || before === 0) return { mark: '' };
  const worseBy = figure.better === 'lower' ? (now - before) / before : (before - now) / before;
  if (worseBy <= WORSE_THRESHOLD) return { worseBy, mark: '' };
  return { worseBy, mark: figure.kind === 'ratio' ? 'WORSE' : 'WORSE (noisy)' };
}

/**
 * The line of `lines` run closest in time to `now` (the newest of equals): a sitting alternates
 * change and baseline, so its baseline line may come just before or just after the change's.
 */
function nearestInTime(lines: HistoryLine[], now: HistoryLine): HistoryLine | undefined {
  const at = Date.parse(now.at);
  let best: HistoryLine | undefined;
  for (const l of lines) if (best === undefined || Math.abs(Date.parse(l.at) - at) <= Math.abs(Date.parse(best.at) - at)) best = l;
  return best;
}

/** The comparisons of every bench with a line in the history. */
export function compareHistory(lines: HistoryLine[], base?: string, head?: string): BenchComparison[] {
  const out: BenchComparison[] = [];
  const names = [...new Set(lines.map((l) => l.bench))].sort((a, b) => BENCHES.findIndex((e) => e.name === a) - BENCHES.findIndex((e) => e.name === b));
  for (const name of names) {
    const entry = benchNamed(name);
    if (!entry) continue;
    const own = lines.filter((l) => l.bench === name);
    const nowIndex = head === undefined ? own.length - 1 : own.findLastIndex((l) => l.label === head);
    if (nowIndex < 0) continue;
    const now = own[nowIndex]!;
    const comparable = (l: HistoryLine) => l !== now && l.result !== undefined && l.quick === now.quick;
    const before = base === undefined
      ? own.slice(0, nowIndex).filter(comparable).at(-1)
      : nearestInTime(own.filter((l) => comparable(l) && l.label === base), now);
    out.push({
      bench: name,
      now,
      before,
      figures: entry.figures.map((figure) => {
        const b = figureOf(before, figure.key);
        const n = figureOf(now, figure.key);
        return { bench: name, figure, before: b, now: n, ...judge(figure, b, n) };
      }),
    });
  }
  return out;
}

const show = (n: number | undefined) => (n === undefined ? '—' : showFigure(n));
const whereFrom = (l: HistoryLine | undefined) => (l === undefined ? 'none' : `${l.commit}${l.label ? ` [${l.label}]` : ''} ${l.at.slice(0, 16).replace('T', ' ')} load ${l.machine.loadBefore[0]}`);

export function formatComparison(benches: BenchComparison[]): string {
  const rows: string[][] = [['bench', 'figure', 'before', 'now', 'change', '']];
  const notes: string[] = [];
  for (const b of benches) {
    notes.push(`${b.bench}: now ${whereFrom(b.now)}; before ${whereFrom(b.before)}${b.now.quick ? ' (quick)' : ''}`);
    if (b.now.error !== undefined) {
      rows.push([b.bench, 'the bench failed', '', '', '', 'FAIL']);
      notes.push(`${b.bench}: ${b.now.error}`);
      continue;
    }
    for (const f of b.figures) {
      if (f.now === undefined && f.before === undefined) continue;
      const change = f.worseBy === undefined ? '' : `${f.worseBy > 0 ? 'worse' : 'better'} ${Math.abs(f.worseBy * 100).toFixed(1)} %`;
      rows.push([b.bench, `${f.figure.label}${f.figure.unit ? ` (${f.figure.unit})` : ''}${f.figure.kind === 'ratio' ? ' [ratio]' : ''}`, show(f.before), show(f.now), change, f.mark]);
    }
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const table = rows.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n');
  return `${table}\n\n${notes.join('\n')}`;
}

/** True when a trusted figure (a same-run ratio or a must-be-zero count) or a bench failed. */
export function hasRegression(benches: BenchComparison[]): boolean {
  return benches.some((b) => b.now.error !== undefined || b.figures.some((f) => f.mark === 'WORSE' || f.mark === 'FAIL'));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  let values;
  try {
    ({ values } = parseArgs({ options: { history: { type: 'string' }, base: { type: 'string' }, head: { type: 'string' } }, strict: true, allowPositionals: false }));
  } catch (err) {
    console.error(`bench:compare: ${(err as Error).message}\nusage: npm run bench:compare -- [--history <file>] [--base <label>] [--head <label>]`);
    process.exit(2);
  }
  const file = values.history ?? DEFAULT_HISTORY;
  const benches = compareHistory(readHistory(file), values.base, values.head);
  if (benches.length === 0) {
    console.log(`bench:compare: no bench lines in ${file}${values.head ? ` labelled "${values.head}"` : ''}; run npm run bench:all first`);
    process.exit(0);
  }
  console.log(formatComparison(benches));
  console.log(`\nmarked: more than ${WORSE_THRESHOLD * 100} % worse than before; [ratio] figures compare within one run, the others move with the machine's load too`);
  process.exitCode = hasRegression(benches) ? 1 : 0;
}
