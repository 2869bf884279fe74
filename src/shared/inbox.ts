import { failureFingerprint } from '../../server/src/contracts/failureFingerprint.js';

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
  /** Someone is on it (triage): an acknowledged item is also read. */
  acknowledged?: boolean;
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
  /** Acknowledged (and so read). */
  | { kind: 'acknowledged'; ids: string[] }
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
      case 'acknowledged': {
        const ids = new Set(change.ids);
        next = next.map((i) => (ids.has(i.id) && !i.acknowledged ? { ...i, read: true, acknowledged: true } : i));
        break;
      }
      case 'removed':
        next = next.filter((i) => i.environmentId !== change.environmentId);
        break;
    }
  }
  return next;
}

/**
 * The failure fingerprint of an item: the server's (the same function over the error text the
 * hub sent, or over the error summary a back-fill read), so that a group links to the
 * environment's tasks with that fingerprint.
 */
export function inboxFingerprint(item: Pick<InboxItem, 'exception' | 'message'>): string {
  return failureFingerprint(item.exception ?? item.message);
}

/** One error of one environment: the inbox items with the same failure fingerprint. */
export interface InboxGroup {
  /** Environment id and fingerprint. */
  key: string;
  environmentId: string;
  environmentName: string;
  isProduction: boolean;
  fingerprint: string;
  /** Task types seen with this error, most recent first. */
  taskTypes: string[];
  count: number;
  unread: number;
  unacknowledged: number;
  /** The newest item of the group. */
  latest: InboxItem;
  /** Every item of the group, newest first. */
  itemIds: string[];
}

/** The inbox as one row per environment and failure fingerprint, newest error first (items come newest first). */
export function groupInbox(items: readonly InboxItem[]): InboxGroup[] {
  const groups = new Map<string, InboxGroup>();
  for (const item of items) {
    const fingerprint = inboxFingerprint(item);
    const key = `${item.environmentId}\u0000${fingerprint}`;
    let group = groups.get(key);
    if (!group) {
      group = {
        key,
        environmentId: item.environmentId,
        environmentName: item.environmentName,
        isProduction: item.isProduction,
        fingerprint,
        taskTypes: [],
        count: 0,
        unread: 0,
        unacknowledged: 0,
        latest: item,
        itemIds: [],
      };
      groups.set(key, group);
    }
    group.count++;
    if (!item.read) group.unread++;
    if (!item.acknowledged) group.unacknowledged++;
    if (!group.taskTypes.includes(item.taskType)) group.taskTypes.push(item.taskType);
    group.itemIds.push(item.id);
  }
  return [...groups.values()];
}
