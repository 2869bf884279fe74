// The bench history: one JSON line per bench run (bench/history.jsonl, committed), written by
// `bench:all`, read by `bench:compare` and `bench:readme`.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const DEFAULT_HISTORY = fileURLToPath(new URL('../history.jsonl', import.meta.url));

export interface HistoryLine {
  /** The bench's name in bench/guard/benches.ts. */
  bench: string;
  /** When the bench finished (ISO 8601, UTC). */
  at: string;
  /** `git rev-parse --short HEAD`, with `+dirty` when the work tree had uncommitted changes. */
  commit: string;
  /** `--label` of the sitting (e.g. "baseline", "change"); null without one. */
  label: string | null;
  /** Small sizes (`--quick`): never compared with a full run. */
  quick: boolean;
  machine: { cpus: number; cpuModel: string; loadBefore: number[]; loadAfter: number[] };
  durationS: number;
  /** The bench's last JSON line: its figures and those of its peer or floor from the same run. */
  result?: Record<string, unknown>;
  /** Why there is no result (exit status, last output lines). */
  error?: string;
}

export function readHistory(file: string): HistoryLine[] {
  if (!existsSync(file)) return [];
  const lines: HistoryLine[] = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((text, i) => {
      if (text.trim() === '') return;
      try {
        lines.push(JSON.parse(text) as HistoryLine);
      } catch {
        throw new Error(`${file}:${i + 1}: not a JSON line`);
      }
    });
  return lines;
}

export function appendHistory(file: string, line: HistoryLine): void {
  appendFileSync(file, `${JSON.stringify(line)}\n`);
}

/** The figure `key` of a line's result when it is a number. */
export function figureOf(line: HistoryLine | undefined, key: string): number | undefined {
  const value = line?.result?.[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** A figure as the compare table and README's block print it: whole numbers grouped, others to 2 decimals. */
export function showFigure(n: number): string {
  return Number.isInteger(n) ? n.toLocaleString('en-US') : n.toLocaleString('en-US', { maximumFractionDigits: 2 });
}
