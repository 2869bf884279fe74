import type { ServerResponse } from 'node:http';
import type { TransportSink } from '../TransportSink.js';

interface PendingPoll {
  res: ServerResponse;
  timer: NodeJS.Timeout;
}

function answer(res: ServerResponse, status: 200 | 204, body = ''): void {
  if (res.writableEnded) return;
  res.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Cache-Control': 'no-store',
    ...(status === 200 ? { 'Content-Length': Buffer.byteLength(body) } : {}),
  });
  res.end(status === 200 ? body : undefined);
}

/**
 * Long polling: frames wait in a bounded queue; a poll takes everything queued (200), waits up
 * to `pollTimeoutMs` for something (200 with an empty body on timeout), and once the
 * connection has ended and its queue is drained, answers 204.
 */
export class LongPollingSink implements TransportSink {
  readonly kind = 'LongPolling' as const;
  private queue: string[] = [];
  private queuedBytes = 0;
  private pending: PendingPoll | undefined;
  private ended = false;

  constructor(private readonly pollTimeoutMs: number) {}

  write(text: string): void {
    if (this.ended) return;
    this.queue.push(text);
    this.queuedBytes += text.length;
    if (this.pending) this.flushTo(this.takePending());
  }

  bufferedBytes(): number {
    return this.queuedBytes;
  }

  end(): void {
    this.ended = true;
    if (this.pending) {
      const res = this.takePending();
      if (this.queue.length > 0) this.flushTo(res);
      else answer(res, 204);
    }
  }

  clientPresent(): boolean {
    return this.pending !== undefined;
  }

  /** True once ended and drained: the next poll gets 204. */
  get finished(): boolean {
    return this.ended && this.queue.length === 0;
  }

  /** The first poll after binding answers at once so that the client knows the transport is up. */
  answerFirstPoll(res: ServerResponse): void {
    answer(res, 200);
  }

  poll(res: ServerResponse): void {
    // TransportProtocols.md: a new poll while one is outstanding ends the older one with 204.
    if (this.pending) answer(this.takePending(), 204);
    if (this.queue.length > 0) {
      this.flushTo(res);
      return;
    }
    if (this.ended) {
      answer(res, 204);
      return;
    }
    const timer = setTimeout(() => {
      if (this.pending?.res === res) this.pending = undefined;
      answer(res, 200);
    }, this.pollTimeoutMs);
    timer.unref();
    this.pending = { res, timer };
    res.on('close', () => {
      if (this.pending?.res === res) {
        clearTimeout(timer);
        this.pending = undefined;
      }
    });
  }

  private takePending(): ServerResponse {
    const pending = this.pending as PendingPoll;
    clearTimeout(pending.timer);
    this.pending = undefined;
    return pending.res;
  }

  private flushTo(res: ServerResponse): void {
    const body = this.queue.join('');
    this.queue = [];
    this.queuedBytes = 0;
    answer(res, 200, body);
  }
}
