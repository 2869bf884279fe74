import type { SvcEvent } from '../../../server/src/contracts/events.js';

import { insertInboxItem, type InboxChange, type InboxFilter, type InboxItem } from '../../shared/inbox.js';

type Listener = (change: InboxChange) => void;

/** Items kept at most; past this the oldest are dropped. */
export const INBOX_CAPACITY = 5_000;

/**
 * Failures across all environments, newest first, with a read flag; the tray badge shows the
 * unread count. Bounded (oldest dropped); InboxFile keeps it across restarts.
 */
export class FailureInbox {
  private items: InboxItem[] = [];
  private sequence = 0;
  private readonly listeners = new Set<Listener>();

  constructor(private readonly capacity = INBOX_CAPACITY) {}

  /** Every item (a copy), newest first: what InboxFile stores. */
  snapshot(): InboxItem[] {
    return this.items.map((i) => ({ ...i }));
  }

  /** Puts back the items of an earlier run (newest first), before any new failure arrives. */
  restore(items: readonly InboxItem[]): void {
    this.items = [...items]
      .sort((a, b) => (a.eventDateUtc < b.eventDateUtc ? 1 : a.eventDateUtc > b.eventDateUtc ? -1 : 0))
      .slice(0, this.capacity)
      .map((i) => ({ ...i }));
    for (const i of this.items) {
      const n = Number(/^f(\d+)$/.exec(i.id)?.[1] ?? 0);
      if (n > this.sequence) this.sequence = n;
    }
    this.emit({ kind: 'reset' });
  }

  onChange(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Whether the inbox already holds this failure (same environment, task and time). */
  has(environmentId: string, taskId: string, eventDateUtc: string): boolean {
    return this.items.some((i) => i.environmentId === environmentId && i.taskId === taskId && i.eventDateUtc === eventDateUtc);
  }

  add(environment: { id: string; name: string; isProduction: boolean }, event: SvcEvent & { kind: 'Failed' | 'Timeout' }, burstId: string, whileAway = false): InboxItem {
    const item: InboxItem = {
      id: `f${++this.sequence}`,
      environmentId: environment.id,
      environmentName: environment.name,
      isProduction: environment.isProduction,
      taskId: event.taskId,
      taskType: event.taskType,
      kind: event.kind,
      message: event.message,
      eventDateUtc: event.eventDateUtc,
      burstId,
      read: false,
      ...(whileAway ? { whileAway: true } : {}),
      ...(event.exception !== undefined ? { exception: event.exception } : {}),
      ...(event.queueName !== undefined ? { queueName: event.queueName } : {}),
    };
    insertInboxItem(this.items, item);
    const dropped = this.items.length > this.capacity ? this.items.splice(this.capacity).map((i) => i.id) : [];
    this.emit({ kind: 'added', items: [{ ...item }], dropped });
    return { ...item };
  }

  list(filter: InboxFilter = {}): InboxItem[] {
    return this.items
      .filter(
        (i) =>
          (filter.environmentId === undefined || i.environmentId === filter.environmentId) &&
          (filter.burstId === undefined || i.burstId === filter.burstId) &&
          (!filter.unreadOnly || !i.read),
      )
      .map((i) => ({ ...i }));
  }

  /** How many items the inbox holds. */
  get size(): number {
    return this.items.length;
  }

  unreadCount(include: (item: InboxItem) => boolean = () => true): number {
    let n = 0;
    for (const i of this.items) if (!i.read && include(i)) n++;
    return n;
  }

  /** Acknowledges the given items (someone is on them); an acknowledged item is also read. */
  acknowledge(ids: readonly string[]): number {
    const wanted = new Set(ids);
    const changed: string[] = [];
    for (const i of this.items) {
      if (i.acknowledged || !wanted.has(i.id)) continue;
      i.acknowledged = true;
      i.read = true;
      changed.push(i.id);
    }
    if (changed.length > 0) this.emit({ kind: 'acknowledged', ids: changed });
    return changed.length;
  }

  /** Marks the given items (or, without ids, every item matching the filter) read. */
  markRead(ids?: readonly string[], filter: InboxFilter = {}): number {
    const wanted = ids ? new Set(ids) : undefined;
    const changed: string[] = [];
    for (const i of this.items) {
      if (i.read) continue;
      if (wanted && !wanted.has(i.id)) continue;
      if (filter.environmentId !== undefined && i.environmentId !== filter.environmentId) continue;
      if (filter.burstId !== undefined && i.burstId !== filter.burstId) continue;
      i.read = true;
      changed.push(i.id);
    }
    if (changed.length > 0) this.emit({ kind: 'read', ids: changed });
    return changed.length;
  }

  /** Forgets the items of a removed environment. */
  removeEnvironment(environmentId: string): void {
    const before = this.items.length;
    this.items = this.items.filter((i) => i.environmentId !== environmentId);
    if (this.items.length !== before) this.emit({ kind: 'removed', environmentId });
  }

  private emit(change: InboxChange): void {
    for (const l of this.listeners) l(change);
  }
}
