// A bench's figures: which keys of its JSON line count, how `bench:compare` judges a change, and
// the target `bench:readme` holds each against.

/** How a figure is judged against the previous line of the same bench. */
export type FigureKind =
  /** A ratio to a peer or floor measured in the same run: the machine's speed cancels out. */
  | 'ratio'
  /** An absolute figure: moves with the machine's load as much as with the code (noisy). */
  | 'absolute'
  /** A count that must stay 0 (lost events, duplicate runs): any other value is a failure. */
  | 'zero';

/** A figure's target: met when `figure op value`. */
export interface Target {
  op: '<' | '≤' | '≥' | '=';
  value: number;
}

export interface Figure {
  /** Key in the bench's JSON line. */
  key: string;
  label: string;
  unit: string;
  better: 'higher' | 'lower';
  kind: FigureKind;
  target?: Target;
}

export const below = (value: number): Target => ({ op: '<', value });
export const atMost = (value: number): Target => ({ op: '≤', value });
export const atLeast = (value: number): Target => ({ op: '≥', value });

export const lower = (key: string, label: string, unit: string, kind: FigureKind = 'absolute', target?: Target): Figure => ({ key, label, unit, better: 'lower', kind, ...(target ? { target } : {}) });
export const higher = (key: string, label: string, unit: string, kind: FigureKind = 'absolute', target?: Target): Figure => ({ key, label, unit, better: 'higher', kind, ...(target ? { target } : {}) });
/** A count that must be 0: its target says so. */
export const zero = (key: string, label: string): Figure => ({ key, label, unit: '', better: 'lower', kind: 'zero', target: { op: '=', value: 0 } });

export function meets(target: Target, value: number): boolean {
  switch (target.op) {
    case '<':
      return value < target.value;
    case '≤':
      return value <= target.value;
    case '≥':
      return value >= target.value;
    case '=':
      return value === target.value;
  }
}
