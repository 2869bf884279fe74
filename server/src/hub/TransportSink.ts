/** The names the negotiate response and the clients use for the three transports. */
export type TransportKind = 'WebSockets' | 'ServerSentEvents' | 'LongPolling';

/** What a connection needs from its transport: write frames, know the backlog, end it. */
export interface TransportSink {
  readonly kind: TransportKind;
  /** Queue framed text for the client; never blocks. `utf8`, when given, is the same text encoded once for many clients. */
  write(text: string, utf8?: Buffer): void;
  /** Bytes written but not yet handed to the network (the per-connection send buffer). */
  bufferedBytes(): number;
  /** True while the transport itself shows the client is there (a pending long poll). */
  clientPresent?(): boolean;
  /** Ends the transport after what is already queued (the Close frame included). */
  end(): void;
}
