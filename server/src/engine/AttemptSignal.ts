/**
 * The abort signal of one attempt, made only when the handler reads it. Most handlers never do,
 * and an AbortController with its signal is among the costliest objects a run would otherwise
 * allocate. An abort before the first read is kept and applied when the signal is made, so a
 * handler reading `ctx.signal` after a cancel, a timeout or a stop sees it aborted with the reason.
 */
export class AttemptSignal {
  private controller: AbortController | undefined;
  private aborted = false;
  private reason: unknown;

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  /** Aborts the attempt (the first reason wins, as with AbortController). */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
  }
}
