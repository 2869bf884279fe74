import { join } from 'node:path';
import { z } from 'zod';
import { readJsonFile } from '../files/readJsonFile.js';
import { writeFileAtomic } from '../files/writeFileAtomic.js';
import type { InboxItem } from '../../shared/inbox.js';

export const INBOX_FILE = 'inbox.json';

const itemSchema = z.looseObject({
  id: z.string(),
  environmentId: z.string(),
  environmentName: z.string(),
  isProduction: z.boolean(),
  taskId: z.string(),
  taskType: z.string(),
  kind: z.enum(['Failed', 'Timeout']),
  message: z.string(),
  exception: z.string().optional(),
  queueName: z.string().optional(),
  eventDateUtc: z.string(),
  burstId: z.string(),
  read: z.boolean(),
  acknowledged: z.boolean().optional(),
  whileAway: z.boolean().optional(),
});
const fileSchema = z.looseObject({ version: z.literal(1), items: z.array(z.unknown()), seenUntil: z.record(z.string(), z.string()).optional() });

/** What the inbox file holds: the items, and per environment the time up to which failures were seen. */
export interface StoredInbox {
  items: InboxItem[];
  seenUntil: Record<string, string>;
}

/**
 * The failure inbox across restarts: `inbox.json` under user-data, with each item's read
 * flag. Holds what the hub sent about failed tasks (never a token or password). Unreadable
 * items are skipped, an unreadable file means an empty inbox. Writes are coalesced.
 */
export class InboxFile {
  readonly file: string;
  private timer: NodeJS.Timeout | undefined;
  private pending: (() => StoredInbox) | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(userDataDir: string, private readonly delayMs = 250) {
    this.file = join(userDataDir, INBOX_FILE);
  }

  async load(): Promise<StoredInbox> {
    const parsed = fileSchema.safeParse(await readJsonFile(this.file).catch(() => undefined));
    if (!parsed.success) return { items: [], seenUntil: {} };
    const items: InboxItem[] = [];
    for (const raw of parsed.data.items) {
      const item = itemSchema.safeParse(raw);
      if (item.success) items.push(item.data as InboxItem);
    }
    return { items, seenUntil: parsed.data.seenUntil ?? {} };
  }

  /** Saves `snapshot()` soon (several changes in a row make one write). */
  schedule(snapshot: () => StoredInbox): void {
    this.pending = snapshot;
    if (this.timer) return;
    this.timer = setTimeout(() => void this.flush(), this.delayMs);
    this.timer.unref?.();
  }

  /** Writes a scheduled save now; resolves when it is on disk. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const snapshot = this.pending;
    this.pending = undefined;
    if (snapshot) {
      const text = JSON.stringify({ version: 1, ...snapshot() });
      this.writing = this.writing.then(() => writeFileAtomic(this.file, text)).catch(() => undefined);
    }
    await this.writing;
  }
}
