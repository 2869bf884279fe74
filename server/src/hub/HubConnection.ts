import { TOKEN_EXPIRED_CLOSE } from '../contracts/liveConnection.js';
import type { ExpirySchedule } from './ExpirySchedule.js';
import type { TransportKind, TransportSink } from './TransportSink.js';
import { RecordReader } from './RecordReader.js';
import {
  HANDSHAKE_OK_FRAME,
  MessageType,
  PING_FRAME,
  closeFrame,
  completionErrorFrame,
  handshakeErrorFrame,
} from './protocol.js';

export interface ConnectionLimits {
  maxMessageBytes: number;
  /** A send buffer over this closes the connection at once. */
  maxBufferedBytes: number;
  /** A send buffer over this (at most maxBufferedBytes) for slowClientGraceMs closes the connection. */
  slowClientBufferedBytes: number;
  slowClientGraceMs: number;
}

export const METHOD_DOES_NOT_EXIST = 'Method does not exist';
export const TOKEN_EXPIRED = TOKEN_EXPIRED_CLOSE;

type State = 'negotiated' | 'handshaking' | 'open' | 'closed';

/**
 * One logical SignalR connection: handshake, incoming messages, outgoing frames through a
 * bounded transport buffer, Close, and the token's expiry (on the hub's one expiry timer).
 * Transport-agnostic.
 */
export class HubConnection {
  private state: State = 'negotiated';
  private sink: TransportSink | undefined;
  private readonly reader: RecordReader;
  readonly createdAtMs = Date.now();
  lastReceivedAtMs = this.createdAtMs;
  lastSentAtMs = this.createdAtMs;
  /** Since when the send buffer has been over slowClientBufferedBytes at every send (undefined: under it at the last one). */
  private overBufferSinceMs: number | undefined;
  /** Closed because it could not keep up (its send buffer), not by either side. */
  closedAsSlow = false;

  constructor(
    readonly connectionId: string,
    /** The value clients pass as `id` (the connectionToken in negotiate v1, the connectionId in v0). */
    readonly token: string,
    private readonly limits: ConnectionLimits,
    private readonly onClosed: (connection: HubConnection) => void,
    private readonly expiries: ExpirySchedule<HubConnection>,
  ) {
    this.reader = new RecordReader(limits.maxMessageBytes);
  }

  get transportKind(): TransportKind | undefined {
    return this.sink?.kind;
  }
  get transport(): TransportSink | undefined {
    return this.sink;
  }
  get isBound(): boolean {
    return this.sink !== undefined;
  }
  get isOpen(): boolean {
    return this.state === 'open';
  }
  get isClosed(): boolean {
    return this.state === 'closed';
  }

  /** Activity that is not a message (a long poll: that client sends no pings). */
  touch(): void {
    this.lastReceivedAtMs = Date.now();
  }

  /** Starts the transport; the client's first message must then be the handshake. */
  bind(sink: TransportSink): void {
    this.sink = sink;
    this.state = 'handshaking';
    this.lastReceivedAtMs = Date.now();
  }

  /** At `expiresAtMs` the client gets Close "Token expired" (allowReconnect) and is dropped. */
  expireAt(expiresAtMs: number | undefined): void {
    if (expiresAtMs === undefined || this.state === 'closed') return;
    if (expiresAtMs <= Date.now()) this.expire();
    else this.expiries.set(this, expiresAtMs);
  }

  /** The token's time is up (called by the hub's expiry timer). */
  expire(): void {
    this.close(TOKEN_EXPIRED, true);
  }

  /** Text from the client (a WebSocket frame or a POST body); returns an error text when it closed the connection. */
  receive(text: string): string | undefined {
    if (this.state === 'closed') return undefined;
    this.lastReceivedAtMs = Date.now();
    const read = this.reader.push(text);
    if (!read.ok) {
      if (this.state === 'handshaking') this.failHandshake(read.error);
      else this.close(read.error);
      return read.error;
    }
    for (const record of read.records) {
      if (this.isClosed) break;
      const error = this.state === 'handshaking' ? this.handleHandshake(record) : this.handleMessage(record);
      if (error !== undefined) return error;
    }
    return undefined;
  }

  /**
   * Sends framed text when the connection is open. A client that is behind gets time to catch up
   * rather than being dropped at its first backlog: it is closed when its send buffer has been
   * over slowClientBufferedBytes at every send for slowClientGraceMs (it is not catching up), or
   * at once when a write would take the buffer past maxBufferedBytes. An empty buffer always
   * takes one write (a burst larger than the bound is not a slow client). `nowMs` lets a
   * broadcast read the clock once for all connections.
   */
  send(text: string, utf8?: Buffer, nowMs: number = Date.now()): void {
    if (this.state !== 'open' || !this.sink) return;
    const buffered = this.sink.bufferedBytes();
    const { maxBufferedBytes, slowClientBufferedBytes, slowClientGraceMs } = this.limits;
    if (buffered > 0 && buffered + (utf8?.length ?? text.length) > maxBufferedBytes) {
      this.closedAsSlow = true;
      this.close(`The client is too slow: its send buffer exceeded ${maxBufferedBytes} bytes.`);
      return;
    }
    if (buffered <= slowClientBufferedBytes) {
      this.overBufferSinceMs = undefined;
    } else {
      this.overBufferSinceMs ??= nowMs;
      if (nowMs - this.overBufferSinceMs >= slowClientGraceMs) {
        this.closedAsSlow = true;
        this.close(`The client is too slow: its send buffer stayed over ${slowClientBufferedBytes} bytes for ${slowClientGraceMs} ms.`);
        return;
      }
    }
    this.sink.write(text, utf8);
    this.lastSentAtMs = nowMs;
  }

  ping(): void {
    this.send(PING_FRAME);
  }

  /** Sends Close (type 7) when the handshake was done, then ends the transport. */
  close(error?: string, allowReconnect?: boolean): void {
    if (this.state === 'closed') return;
    const wasOpen = this.state === 'open';
    this.state = 'closed';
    this.clearTimer();
    if (this.sink) {
      if (wasOpen) this.sink.write(closeFrame(error, allowReconnect));
      this.sink.end();
    }
    this.onClosed(this);
  }

  /** The client asked to end (long-polling DELETE): end the transport without a Close frame. */
  terminate(): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.clearTimer();
    this.sink?.end();
    this.onClosed(this);
  }

  /** The transport went away on the client's side: nothing more to send. */
  transportClosed(): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.clearTimer();
    this.onClosed(this);
  }

  private clearTimer(): void {
    this.expiries.delete(this);
  }

  private failHandshake(error: string): string {
    this.state = 'closed';
    this.clearTimer();
    if (this.sink) {
      this.sink.write(handshakeErrorFrame(error));
      this.sink.end();
    }
    this.onClosed(this);
    return error;
  }

  private handleHandshake(record: string): string | undefined {
    let request: unknown;
    try {
      request = JSON.parse(record);
    } catch {
      return this.failHandshake('Handshake request is not valid JSON.');
    }
    if (typeof request !== 'object' || request === null) return this.failHandshake('Handshake request must be a JSON object.');
    const { protocol, version } = request as { protocol?: unknown; version?: unknown };
    if (typeof protocol !== 'string') return this.failHandshake("Handshake request is missing the 'protocol' property.");
    if (protocol !== 'json') return this.failHandshake(`The protocol '${protocol}' is not supported.`);
    if (version !== 1) {
      return this.failHandshake(`The server does not support version ${String(version)} of the 'json' protocol.`);
    }
    this.state = 'open';
    this.sink?.write(HANDSHAKE_OK_FRAME);
    this.lastSentAtMs = Date.now();
    return undefined;
  }

  private handleMessage(record: string): string | undefined {
    let message: unknown;
    try {
      message = JSON.parse(record);
    } catch {
      const error = 'Invalid message: the text is not valid JSON.';
      this.close(error);
      return error;
    }
    if (typeof message !== 'object' || message === null || typeof (message as { type?: unknown }).type !== 'number') {
      const error = "Invalid message: missing the numeric 'type' property.";
      this.close(error);
      return error;
    }
    const { type, invocationId } = message as { type: number; invocationId?: unknown };
    switch (type) {
      case MessageType.Invocation:
      case MessageType.StreamInvocation:
        // This hub exposes no server methods; a blocking invocation gets an error completion.
        if (typeof invocationId === 'string') this.send(completionErrorFrame(invocationId, METHOD_DOES_NOT_EXIST));
        return undefined;
      case MessageType.Close:
        this.close();
        return undefined;
      default:
        // Ping, CancelInvocation, client results, Ack/Sequence: nothing to do.
        return undefined;
    }
  }
}
