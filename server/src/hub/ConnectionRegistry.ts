import { randomBytes } from 'node:crypto';
import { HubConnection, type ConnectionLimits } from './HubConnection.js';
import type { TransportSink } from './TransportSink.js';

function newId(): string {
  return randomBytes(16).toString('base64url');
}

/**
 * The live connections by the `id` the clients pass, plus recently closed long-polling
 * connections ("retired"): their last frames (Close) are still delivered and a poll after the
 * end answers 204 rather than 404.
 */
export class ConnectionRegistry {
  private readonly live = new Map<string, HubConnection>();
  private readonly retired = new Map<string, { sink: TransportSink; untilMs: number }>();

  constructor(
    private readonly limits: ConnectionLimits,
    private readonly retireForMs: number,
  ) {}

  /** Negotiate v1 gives a separate secret token; v0 (and skipNegotiation) use the connectionId. */
  create(withToken: boolean): HubConnection {
    const connectionId = newId();
    const token = withToken ? newId() : connectionId;
    const connection = new HubConnection(connectionId, token, this.limits, (c) => this.onClosed(c));
    this.live.set(token, connection);
    return connection;
  }

  get(token: string): HubConnection | undefined {
    return this.live.get(token);
  }

  getRetired(token: string): TransportSink | undefined {
    return this.retired.get(token)?.sink;
  }

  forgetRetired(token: string): void {
    this.retired.delete(token);
  }

  connections(): IterableIterator<HubConnection> {
    return this.live.values();
  }

  /** Open (handshake done) connections. */
  openCount(): number {
    let n = 0;
    for (const c of this.live.values()) if (c.isOpen) n++;
    return n;
  }

  dropExpiredRetired(nowMs: number): void {
    for (const [token, entry] of this.retired) if (entry.untilMs <= nowMs) this.retired.delete(token);
  }

  private onClosed(connection: HubConnection): void {
    this.live.delete(connection.token);
    const sink = connection.transport;
    if (sink && sink.kind === 'LongPolling') {
      this.retired.set(connection.token, { sink, untilMs: Date.now() + this.retireForMs });
    }
  }
}
