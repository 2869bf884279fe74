import { RECORD_SEPARATOR } from './protocol.js';

export type ReadResult = { ok: true; records: string[] } | { ok: false; error: string };

/**
 * Splits incoming text into records on the record separator, keeping an incomplete tail for
 * the next chunk (a record may span several WebSocket frames or POST bodies). A record (or an
 * unfinished tail) longer than `maxMessageBytes` is an error.
 */
export class RecordReader {
  private tail = '';

  constructor(private readonly maxMessageBytes: number) {}

  push(chunk: string): ReadResult {
    const text = this.tail + chunk;
    const parts = text.split(RECORD_SEPARATOR);
    this.tail = parts.pop() ?? '';
    for (const record of parts) {
      if (this.tooLong(record)) return this.oversize();
    }
    if (this.tooLong(this.tail)) return this.oversize();
    return { ok: true, records: parts };
  }

  private tooLong(text: string): boolean {
    // A UTF-16 length above the limit may still be under it in bytes only when it is ASCII-free
    // text; measure exactly only near the limit.
    if (text.length * 3 <= this.maxMessageBytes) return false;
    return Buffer.byteLength(text, 'utf8') > this.maxMessageBytes;
  }

  private oversize(): ReadResult {
    this.tail = '';
    return { ok: false, error: `The message exceeds the maximum message size of ${this.maxMessageBytes} bytes.` };
  }
}
