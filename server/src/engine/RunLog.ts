import type { ExecutionLogEntry, LogLevel } from '../contracts/index.js';
import type { NewExecutionLog } from '../storage/EngineStore.js';
import type { TaskLogger } from './types.js';
import { storableText } from './storableText.js';
import { errorText } from './validation.js';

/** A log record waiting for the next group commit; `entry.id` is set when it is written. */
export interface PendingLog {
  row: NewExecutionLog;
  entry: ExecutionLogEntry;
}

/**
 * The execution log of one run: `ctx.log`, capped at `cap` records per run; records beyond
 * the cap are dropped (counted in `dropped`). Sequence numbers continue the task's previous runs.
 */
export class RunLog {
  readonly entries: ExecutionLogEntry[] = [];
  dropped = 0;
  private closed = false;
  readonly logger: TaskLogger;

  constructor(
    private readonly taskId: string,
    private readonly cap: number,
    private readonly clock: () => number,
    /** Highest sequence number the task's earlier runs wrote. */
    private seq: number,
    private readonly sink: (log: PendingLog) => void,
  ) {
    const at = (level: LogLevel) => (message: string, err?: unknown) => this.append(level, message, err);
    this.logger = { trace: at('Trace'), debug: at('Debug'), info: at('Information'), warn: at('Warning'), error: at('Error') };
  }

  append(level: LogLevel, message: unknown, err?: unknown): void {
    if (this.closed) return;
    if (this.entries.length >= this.cap) {
      this.dropped++;
      return;
    }
    const timestamp = this.clock();
    const text = storableText(typeof message === 'string' ? message : String(message));
    const exceptionDetails = err === undefined || err === null ? null : errorText(err);
    const sequenceNumber = ++this.seq;
    const entry: ExecutionLogEntry = {
      id: 0,
      taskId: this.taskId,
      timestampUtc: new Date(timestamp).toISOString(),
      level,
      message: text,
      sequenceNumber,
    };
    if (exceptionDetails !== null) entry.exceptionDetails = exceptionDetails;
    this.entries.push(entry);
    this.sink({ row: { taskId: this.taskId, timestamp, level, message: text, exceptionDetails, sequenceNumber }, entry });
  }

  /** After the run settles, further calls (a handler that ignored its signal) are ignored. */
  close(): void {
    this.closed = true;
  }
}
