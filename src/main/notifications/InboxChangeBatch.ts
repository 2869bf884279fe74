import type { InboxChange } from '../../shared/inbox.js';

/**
 * The inbox's changes on their way to the renderer, gathered for a moment: a storm of failures
 * is a few messages a second with the new items, never the whole inbox per failure.
 */
export class InboxChangeBatch {
  private changes: InboxChange[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly send: (changes: InboxChange[]) => void,
    private readonly delayMs = 100,
  ) {}

  add(change: InboxChange): void {
    const last = this.changes.at(-1);
    if (change.kind === 'added' && last?.kind === 'added') {
      last.items.unshift(...change.items);
      last.dropped.push(...change.dropped);
    } else this.changes.push(change.kind === 'added' ? { ...change, items: [...change.items], dropped: [...change.dropped] } : change);
    if (this.timer) return;
    this.timer = setTimeout(() => this.flush(), this.delayMs);
    this.timer.unref?.();
  }

  /** Sends what was gathered now (nothing when nothing was). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.changes.length === 0) return;
    const changes = this.changes;
    this.changes = [];
    this.send(changes);
  }
}
