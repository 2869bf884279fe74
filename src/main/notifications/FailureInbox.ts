import type { SvcEvent } from '../../../server/src/contracts/events.js';

/** One failure received from an environment's hub. */
export interface InboxItem {
  id: string;
  environmentId: string;
  environmentName: string;
  isProduction: boolean;
  taskId: string;
  taskType: string;
  kind: 'Failed' | 'Timeout';
  message: string;
  exception?: string;
  queueName?: string;
  eventDateUtc: string;
  /** The notification burst it was reported in. */
  burstId: string;
  read: boolean;
}

export interface InboxFilter {
  environmentId?: string;
  burstId?: string;
  unreadOnly?: boolean;
}

type Listener = () => void;

/**
 * Failures across all environments, newest first, with a read flag. Kept in memory for the
 * session (bounded); the tray badge shows the unread count.
 */
export class FailureInbox {
  private items: InboxItem[] = [];
  private sequence = 0;
  private readonly listeners = new Set<Listener>();

  constructor(private readonly capacity = 1_000) {}

  onChange(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  add(environment: { id: string; name: string; isProduction: boolean }, event: SvcEvent & { kind: 'Failed' | 'Timeout' }, burstId: string): InboxItem {
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
      ...(event.exception !== undefined ? { exception: event.exception } : {}),
      ...(event.queueName !== undefined ? { queueName: event.queueName } : {}),
    };
    // Newest first by event date; equal dates keep arrival order (newest arrival first).
    const at = this.items.findIndex((x) => x.eventDateUtc <= item.eventDateUtc);
    if (at < 0) this.items.push(item);
    else this.items.splice(at, 0, item);
    if (this.items.length > this.capacity) this.items.length = this.capacity;
    this.emit();
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

  unreadCount(include: (environmentId: string) => boolean = () => true): number {
    let n = 0;
    for (const i of this.items) if (!i.read && include(i.environmentId)) n++;
    return n;
  }

  /** Marks the given items (or, without ids, every item matching the filter) read. */
  markRead(ids?: readonly string[], filter: InboxFilter = {}): number {
    const wanted = ids ? new Set(ids) : undefined;
    let changed = 0;
    for (const i of this.items) {
      if (i.read) continue;
      if (wanted && !wanted.has(i.id)) continue;
      if (filter.environmentId !== undefined && i.environmentId !== filter.environmentId) continue;
      if (filter.burstId !== undefined && i.burstId !== filter.burstId) continue;
      i.read = true;
      changed++;
    }
    if (changed > 0) this.emit();
    return changed;
  }

  /** Forgets the items of a removed environment. */
  removeEnvironment(environmentId: string): void {
    const before = this.items.length;
    this.items = this.items.filter((i) => i.environmentId !== environmentId);
    if (this.items.length !== before) this.emit();
  }

  private emit(): void {
    for (const l of this.listeners) l();
  }
}
