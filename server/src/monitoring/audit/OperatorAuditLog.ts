import type { IncomingMessage } from 'node:http';
import type { BulkOperation, OperatorAuditBulkDetails, OperatorAuditEntry } from '../../contracts/index.js';
import type { OperatorAuditRecord, OperatorAuditStore } from '../../storage/OperatorAuditStore.js';
import type { ClientAddressResolver } from '../network/clientAddress.js';
import type { AuditLineLogger } from './auditLineLogger.js';

/** What a caller records: the entry without id and time (now unless `atMs` is given). */
export type OperatorAuditInput = Omit<OperatorAuditRecord, 'atMs'> & { atMs?: number };

export interface OperatorAuditLogDeps {
  /** Where records are kept; undefined when the store has no audit table (records then go to the log only). */
  store: OperatorAuditStore | undefined;
  clients: ClientAddressResolver;
  lines: AuditLineLogger;
  now: () => number;
  retentionDays: number;
  /** Each record, once written (alert webhooks); its id is 0 when the store could not keep it. */
  onRecorded?: (entry: OperatorAuditEntry) => void;
  warn: (message: string) => void;
}

const DAY_MS = 86_400_000;
/** How often records past the retention are deleted (also once at start). */
const PRUNE_EVERY_MS = 3_600_000;
/** Bulk operations waited on at most (their records get the counts they reach). */
const MAX_OPEN_BULKS = 1000;

interface OpenBulk {
  /** The record's id, once written. */
  id?: Promise<number | undefined>;
  details?: OperatorAuditBulkDetails;
  /** The final snapshot, when it came before the record was written. */
  final?: BulkOperation;
}

/**
 * The operator audit trail: every sign-in, management action and refusal of one goes through
 * `record`, which appends it to the store, writes it as a structured log line and hands it to the
 * alert rules. A failed write is logged, never thrown at the caller (the action it records has
 * already been answered). Records older than the retention are deleted at start and every hour.
 */
export class OperatorAuditLog {
  private readonly pending = new Set<Promise<unknown>>();
  private readonly bulks = new Map<string, OpenBulk>();
  private timer: NodeJS.Timeout | undefined;
  private warnedStore = false;
  /** The last append asked for: records are appended one after another, in the order they were asked for. */
  private lastAppend: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: OperatorAuditLogDeps) {}

  /** The client address (after the trusted-proxy rules) and user agent of a request. */
  requestFacts(req: IncomingMessage): Pick<OperatorAuditInput, 'clientAddress' | 'userAgent'> {
    const ua = req.headers['user-agent'];
    return { clientAddress: this.deps.clients.addressOf(req), userAgent: typeof ua === 'string' && ua !== '' ? ua : undefined };
  }

  /** Appends a record (asynchronously); resolves with its id, or undefined when it could not be kept. */
  record(input: OperatorAuditInput): Promise<number | undefined> {
    const { atMs = this.deps.now(), ...rest } = input;
    const record: OperatorAuditRecord = { ...rest, atMs };
    const written = this.write(record);
    const operationId = record.bulk?.operationId;
    if (operationId !== undefined && record.bulk?.state === 'Running') this.openBulk(operationId, written, record.bulk);
    return written;
  }

  /** A bulk operation's progress: its final snapshot completes its record with the counts reached. */
  bulkProgress(op: BulkOperation): void {
    if (op.state === 'Running') return;
    const open = this.bulks.get(op.operationId);
    if (open?.id === undefined) {
      // The answer's record is not written yet: it takes the counts when it is.
      this.remember(op.operationId, { ...open, final: op });
      return;
    }
    this.bulks.delete(op.operationId);
    this.track(open.id.then((id) => this.finish(id, open.details, op)));
  }

  /** Deletes the records older than the retention; answers how many. */
  async prune(): Promise<number> {
    if (!this.deps.store) return 0;
    try {
      return await this.deps.store.prune(this.deps.now() - this.deps.retentionDays * DAY_MS);
    } catch (err) {
      this.warnOnce(err);
      return 0;
    }
  }

  /** Prunes now and every hour. */
  start(): void {
    this.track(this.prune());
    this.timer = setInterval(() => this.track(this.prune()), PRUNE_EVERY_MS);
    this.timer.unref?.();
  }

  /** Resolves once every record asked for so far is written (close, tests). */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.idle();
  }

  private write(record: OperatorAuditRecord): Promise<number | undefined> {
    const written = (async () => {
      let id: number | undefined;
      const store = this.deps.store;
      if (store) {
        // Ids follow the order of the answers recorded (two writes in flight at once, each on its
        // own pooled connection, could otherwise commit the later answer's record first).
        const appended = this.lastAppend.then(() => store.append(record));
        this.lastAppend = appended.catch(() => undefined);
        try {
          id = await appended;
        } catch (err) {
          this.warnOnce(err);
        }
      }
      const { atMs, ...fields } = record;
      const entry: OperatorAuditEntry = { id: id ?? 0, atUtc: new Date(atMs).toISOString(), ...fields };
      this.deps.lines.info({ operatorAudit: entry }, `operator ${entry.action} by ${entry.actor}: ${entry.result}${entry.status ? ` (${entry.status})` : ''}`);
      this.deps.onRecorded?.(entry);
      return id;
    })();
    return this.track(written);
  }

  private openBulk(operationId: string, id: Promise<number | undefined>, details: OperatorAuditBulkDetails): void {
    const earlier = this.bulks.get(operationId);
    if (earlier?.final !== undefined) {
      this.bulks.delete(operationId);
      const final = earlier.final;
      this.track(id.then((recordId) => this.finish(recordId, details, final)));
      return;
    }
    this.remember(operationId, { id, details });
  }

  private remember(operationId: string, open: OpenBulk): void {
    this.bulks.set(operationId, open);
    // Operations started outside the API never get a record: the oldest are forgotten.
    for (const key of this.bulks.keys()) {
      if (this.bulks.size <= MAX_OPEN_BULKS) break;
      this.bulks.delete(key);
    }
  }

  private async finish(id: number | undefined, details: OperatorAuditBulkDetails | undefined, op: BulkOperation): Promise<void> {
    if (id === undefined || details === undefined || !this.deps.store) return;
    const reached: OperatorAuditBulkDetails = { ...details, state: op.state, processed: op.processed, succeeded: op.succeeded, skipped: op.skipped };
    try {
      await this.deps.store.finishBulk(id, reached);
      this.deps.lines.info({ operatorAudit: { id, bulk: reached } }, `operator bulk ${op.action} ${op.operationId}: ${op.state}, ${op.succeeded} of ${op.count} changed`);
    } catch (err) {
      this.warnOnce(err);
    }
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p)).catch(() => undefined);
    return p;
  }

  private warnOnce(err: unknown): void {
    if (this.warnedStore) return;
    this.warnedStore = true;
    this.deps.warn(`svc-monitoring: the operator audit could not be written to the store (records go to the log only until it can): ${(err as Error)?.message ?? String(err)}`);
  }
}
