/** One failure received from an environment's hub (or found by a back-fill). */
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
  /** Found by the back-fill after a reconnect, a wake or a restart, not received live. */
  whileAway?: boolean;
}

/** Which items a list or a mark-as-read concerns; every given field must match. */
export interface InboxFilter {
  environmentId?: string;
  burstId?: string;
  unreadOnly?: boolean;
}

/** Marks items read: the listed ids, or every item of an environment or a burst. */
export interface InboxMarkRead {
  ids?: string[];
  environmentId?: string;
  burstId?: string;
}

/**
 * What changed in the failure inbox. Main sends these to the renderer, which applies them to
 * its copy, instead of the renderer fetching the whole inbox (up to 5,000 items) on each change.
 */
export type InboxChange =
  /** New items (newest first); `dropped` are the ids of the oldest items that made room. */
  | { kind: 'added'; items: InboxItem[]; dropped: string[] }
  | { kind: 'read'; ids: string[] }
  | { kind: 'removed'; environmentId: string }
  /** Everything may differ (the inbox of an earlier run was put back): fetch the list again. */
  | { kind: 'reset' };

/** Puts `item` into `items` (newest first by event date; equal dates keep arrival order, newest arrival first). */
export function insertInboxItem(items: InboxItem[], item: InboxItem): void {
  const at = items.findIndex((x) => x.eventDateUtc <= item.eventDateUtc);
  if (at < 0) items.push(item);
  else items.splice(at, 0, item);
}

/**
 * `items` after `changes` (the renderer's copy of the inbox), or undefined when a change asks
 * for the whole list again.
 */
export function applyInboxChanges(items: readonly InboxItem[], changes: readonly InboxChange[]): InboxItem[] | undefined {
  let next = [...items];
  for (const change of changes) {
    switch (change.kind) {
      case 'reset':
        return undefined;
      case 'added': {
        const dropped = new Set(change.dropped);
        if (dropped.size > 0) next = next.filter((i) => !dropped.has(i.id));
        for (const item of [...change.items].reverse()) insertInboxItem(next, item);
        break;
      }
      case 'read': {
        const ids = new Set(change.ids);
        next = next.map((i) => (ids.has(i.id) && !i.read ? { ...i, read: true } : i));
        break;
      }
      case 'removed':
        next = next.filter((i) => i.environmentId !== change.environmentId);
        break;
    }
  }
  return next;
}
