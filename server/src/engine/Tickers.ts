interface Ticker {
  name: string;
  tick: (nowMs: number) => void | Promise<unknown>;
  intervalMs: number;
  timer: NodeJS.Timeout | undefined;
  /** A tick still running (async): the next interval does not start another. */
  busy: Promise<void> | null;
}

/** Periodic work of the engine's parts (the schedule materializer): runs while the engine runs. */
export class Tickers {
  private readonly all: Ticker[] = [];
  private active = false;

  constructor(
    private readonly clock: () => number,
    private readonly onError: (err: unknown, where: string) => void,
    /** After each tick: new rows may be due. */
    private readonly afterTick: () => void,
  ) {}

  add(name: string, tick: (nowMs: number) => void | Promise<unknown>, intervalMs: number): void {
    if (!Number.isFinite(intervalMs) || intervalMs < 1) throw new RangeError(`addTicker("${name}"): intervalMs must be >= 1`);
    const t: Ticker = { name, tick, intervalMs, timer: undefined, busy: null };
    this.all.push(t);
    if (this.active) this.begin(t);
  }

  /** Starts every ticker (each ticks once now, then on its interval). */
  start(): void {
    this.active = true;
    for (const t of this.all) this.begin(t);
  }

  /** Stops every ticker; resolves when ticks still running have settled. */
  async stop(): Promise<void> {
    this.active = false;
    for (const t of this.all) {
      clearInterval(t.timer);
      t.timer = undefined;
    }
    await Promise.all(this.all.map((t) => t.busy));
  }

  private begin(t: Ticker): void {
    const run = () => {
      if (!this.active || t.busy !== null) return;
      let result: void | Promise<unknown>;
      try {
        result = t.tick(this.clock());
      } catch (err) {
        this.onError(err, `ticker ${t.name}`);
        this.afterTick();
        return;
      }
      if (result instanceof Promise) {
        t.busy = result.then(
          () => {
            t.busy = null;
            if (this.active) this.afterTick();
          },
          (err: unknown) => {
            t.busy = null;
            this.onError(err, `ticker ${t.name}`);
          },
        );
      } else {
        this.afterTick();
      }
    };
    clearInterval(t.timer);
    t.timer = setInterval(run, t.intervalMs);
    run();
  }
}
