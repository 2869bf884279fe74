import type { EnvironmentLiveStatus } from '../../shared/environmentStatus.js';

/** Whether an environment is watched live right now, and if not why. */
export type WatchCondition = { watching: true } | { watching: false; reason: string; immediate: boolean; quiet?: boolean };

/**
 * Live status → watch condition. Needing a login and polling are gaps at once; a live
 * connection that is down (connecting, reconnecting, host unreachable) becomes a gap only
 * after the grace period, so short reconnects stay quiet.
 */
export function watchConditionOf(live: EnvironmentLiveStatus, message?: string): WatchCondition {
  const detail = message ? `: ${message}` : '';
  switch (live) {
    case 'connected':
      return { watching: true };
    case 'polling':
      return { watching: false, reason: `only polling${detail}`, immediate: true };
    case 'relogin-required':
      return { watching: false, reason: 'log in again', immediate: true };
    case 'logged-out':
      // Shown, but no alert: the user has not logged in yet (e.g. just added it).
      return { watching: false, reason: 'not logged in', immediate: true, quiet: true };
    case 'connecting':
    case 'reconnecting':
    case 'error':
      return { watching: false, reason: `live connection down${detail}`, immediate: false };
  }
}

export interface WatchGapTrackerOptions {
  /** A connection that is down becomes a gap after this long (default 30 s). */
  graceMs?: number;
  now?: () => number;
  /** An environment's gap started, changed or ended (also called when the grace runs out). */
  onChange(environmentId: string, gap: string | undefined, previous: string | undefined, condition: WatchCondition): void;
}

interface Entry {
  since: number;
  condition: WatchCondition;
  timer?: NodeJS.Timeout;
  reported?: string;
}

/** Per environment: since when it is not watched, and the gap ("not watching: <reason>") once it counts. */
export class WatchGapTracker {
  private readonly entries = new Map<string, Entry>();
  private readonly graceMs: number;
  private readonly now: () => number;

  constructor(private readonly options: WatchGapTrackerOptions) {
    this.graceMs = options.graceMs ?? 30_000;
    this.now = options.now ?? Date.now;
  }

  /** The reason the environment is not watched, once it counts as a gap. */
  gap(environmentId: string): string | undefined {
    const e = this.entries.get(environmentId);
    if (!e || e.condition.watching) return undefined;
    if (e.condition.immediate || this.now() - e.since >= this.graceMs) return e.condition.reason;
    return undefined;
  }

  update(environmentId: string, condition: WatchCondition): void {
    let e = this.entries.get(environmentId);
    if (!e) {
      e = { since: this.now(), condition };
      this.entries.set(environmentId, e);
    } else {
      // The clock of a gap starts when watching stops, not at each change of reason.
      if (e.condition.watching && !condition.watching) e.since = this.now();
      e.condition = condition;
    }
    if (e.timer) clearTimeout(e.timer);
    e.timer = undefined;
    if (!condition.watching && !condition.immediate) this.armGrace(environmentId, e);
    this.report(environmentId);
  }

  /**
   * Reports the gap when the grace period ends. A timer may fire a millisecond before the wall
   * clock says the period is over; it then waits for the rest instead of never reporting.
   */
  private armGrace(environmentId: string, e: Entry): void {
    const wait = e.since + this.graceMs - this.now();
    if (wait <= 0) return;
    e.timer = setTimeout(() => {
      e.timer = undefined;
      this.armGrace(environmentId, e);
      this.report(environmentId);
    }, wait);
    e.timer.unref?.();
  }

  remove(environmentId: string): void {
    const e = this.entries.get(environmentId);
    if (e?.timer) clearTimeout(e.timer);
    this.entries.delete(environmentId);
  }

  dispose(): void {
    for (const id of [...this.entries.keys()]) this.remove(id);
  }

  private report(environmentId: string): void {
    const e = this.entries.get(environmentId);
    if (!e) return;
    const gap = this.gap(environmentId);
    if (gap === e.reported) return;
    const previous = e.reported;
    e.reported = gap;
    this.options.onChange(environmentId, gap, previous, e.condition);
  }
}
