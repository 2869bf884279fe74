import type { Metric, Registry } from 'prom-client';

/**
 * Counter and histogram families for the per-task hot path. Each series is an object bound once
 * to its label values: counting is an addition to it, with no label object, hash or validation
 * per event (prom-client's `inc`/`observe` pay those each call). The registry reads the series at
 * scrape time in the shape prom-client's own families give, so both text formats render them alike.
 */

interface FamilyConfig<L extends string> {
  name: string;
  help: string;
  labelNames: readonly L[];
  registers: Registry[];
}

type Labels<L extends string> = Record<L, string>;
interface Sample {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
}

abstract class SeriesFamily<L extends string, S> {
  readonly name: string;
  readonly help: string;
  readonly aggregator = 'sum';
  abstract readonly type: 'counter' | 'histogram';
  /** Every series made, in the order first used. */
  protected readonly series: { labels: Labels<L>; state: S }[] = [];
  /** The series by their label values, one map level per label (no key string made per event). */
  private readonly index = new Map<string, unknown>();
  private readonly labelNames: readonly L[];

  constructor(config: FamilyConfig<L>) {
    this.name = config.name;
    this.help = config.help;
    this.labelNames = config.labelNames;
    for (const registry of config.registers) registry.registerMetric(this as unknown as Metric);
  }

  /** The series of these label values (in `labelNames` order), made on first use and kept. */
  protected bind(values: readonly string[], make: () => S): S {
    let level = this.index;
    const last = values.length - 1;
    for (let i = 0; i < last; i++) {
      let next = level.get(values[i]!) as Map<string, unknown> | undefined;
      if (next === undefined) level.set(values[i]!, (next = new Map()));
      level = next;
    }
    let state = level.get(values[last]!) as S | undefined;
    if (state === undefined) {
      const labels = {} as Labels<L>;
      this.labelNames.forEach((n, i) => (labels[n] = values[i]!));
      state = make();
      this.series.push({ labels, state });
      level.set(values[last]!, state);
    }
    return state;
  }

  protected abstract samples(): Sample[];

  /** What prom-client's registry renders (both text formats). */
  async get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: Sample[] }> {
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values: this.samples() };
  }

  reset(): void {
    this.series.length = 0;
    this.index.clear();
  }
}

/** One series of a `SeriesCounter`. */
export interface CounterSeries {
  value: number;
}

export class SeriesCounter<L extends string> extends SeriesFamily<L, CounterSeries> {
  readonly type = 'counter';

  /** The series to add to: `series(...).value += n`. */
  of(...values: string[]): CounterSeries {
    return this.bind(values, () => ({ value: 0 }));
  }

  protected samples(): Sample[] {
    return this.series.map(({ labels, state }) => ({ value: state.value, labels: { ...labels } }));
  }
}

/** One series of a `SeriesHistogram`. */
export class HistogramSeries {
  sum = 0;
  count = 0;
  /** Observations per bucket, not cumulative (the last slot: above every bound). */
  readonly perBucket: Float64Array;

  constructor(private readonly bounds: readonly number[]) {
    this.perBucket = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    this.perBucket[i]!++;
    this.sum += value;
    this.count++;
  }
}

export class SeriesHistogram<L extends string> extends SeriesFamily<L, HistogramSeries> {
  readonly type = 'histogram';
  private readonly bounds: readonly number[];

  constructor(config: FamilyConfig<L> & { buckets: readonly number[] }) {
    super(config);
    this.bounds = config.buckets;
  }

  of(...values: string[]): HistogramSeries {
    return this.bind(values, () => new HistogramSeries(this.bounds));
  }

  protected samples(): Sample[] {
    const out: Sample[] = [];
    const bucket = `${this.name}_bucket`;
    for (const { labels, state } of this.series) {
      let cumulative = 0;
      this.bounds.forEach((le, i) => {
        cumulative += state.perBucket[i]!;
        out.push({ value: cumulative, labels: { le, ...labels }, metricName: bucket });
      });
      out.push({ value: state.count, labels: { le: '+Inf', ...labels }, metricName: bucket });
      out.push({ value: state.sum, labels: { ...labels }, metricName: `${this.name}_sum` });
      out.push({ value: state.count, labels: { ...labels }, metricName: `${this.name}_count` });
    }
    return out;
  }
}
