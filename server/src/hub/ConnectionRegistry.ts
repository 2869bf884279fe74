import { randomBytes } from 'node:crypto';
import { ExpirySchedule } from './ExpirySchedule.js';
import { HubConnection, type ConnectionLimits } from './HubConnection.js';
import type { TransportSink } from './TransportSink.js';

function newId(): string {
  return randomBytes(16).toString('base64url');
}

/** Caps on live connections (negotiated or connected), per client and in total. */
export interface ConnectionCaps {
  maxConnectionsPerClient: number;
  maxConnections: number;
}

export type CreateResult = { ok: true; connection: HubConnection } | { ok: false; status: 429 | 503; message: string };

/**
 * The live connections by the `id` the clients pass, plus recently closed long-polling
 * connections ("retired"): their last frames (Close) are still delivered and a poll after the
 * end answers 204 rather than 404.
 */
export class ConnectionRegistry {
  private readonly live = new Map<string, HubConnection>();
  private readonly retired = new Map<string, { sink: TransportSink; untilMs: number }>();
  private readonly clientOf = new Map<HubConnection, string>();
  private readonly perClient = new Map<string, number>();
  /** One timer for the token expiries of all connections. */
  private readonly expiries = new ExpirySchedule<HubConnection>((c) => c.expire());
  /** New connections refused: 429 (a client at its cap), 503 (the hub at its cap). */
  readonly rejected = { 429: 0, 503: 0 };
  /** Connections closed because they could not keep up. */
  slowClientCloses = 0;

  constructor(
    private readonly limits: ConnectionLimits,
    private readonly retireForMs: number,
    private readonly caps: ConnectionCaps = { maxConnectionsPerClient: Infinity, maxConnections: Infinity },
  ) {}

  /**
   * A new connection for `client` (its address), unless that client or the hub is at its cap.
   * Negotiate v1 gives a separate secret token; v0 (and skipNegotiation) use the connectionId.
   */
  create(withToken: boolean, client: string): CreateResult {
    if (this.live.size >= this.caps.maxConnections) {
      this.rejected[503]++;
      return { ok: false, status: 503, message: `The hub has reached its limit of ${this.caps.maxConnections} connections; try again later.` };
    }
    const held = this.perClient.get(client) ?? 0;
    if (held >= this.caps.maxConnectionsPerClient) {
      this.rejected[429]++;
      return {
        ok: false,
        status: 429,
        message: `This client address already holds ${held} hub connections (the limit); close one before opening another.`,
      };
    }
    const connectionId = newId();
    const token = withToken ? newId() : connectionId;
    const connection = new HubConnection(connectionId, token, this.limits, (c) => this.onClosed(c), this.expiries);
    this.live.set(token, connection);
    this.clientOf.set(connection, client);
    this.perClient.set(client, held + 1);
    return { ok: true, connection };
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

  /** Stops the expiry timer (the hub is closing). */
  stopTimers(): void {
    this.expiries.stop();
  }

  dropExpiredRetired(nowMs: number): void {
    for (const [token, entry] of this.retired) if (entry.untilMs <= nowMs) this.retired.delete(token);
  }

  private onClosed(connection: HubConnection): void {
    if (connection.closedAsSlow && this.live.has(connection.token)) this.slowClientCloses++;
    this.live.delete(connection.token);
    const client = this.clientOf.get(connection);
    if (client !== undefined) {
      this.clientOf.delete(connection);
      const left = (this.perClient.get(client) ?? 1) - 1;
      if (left > 0) this.perClient.set(client, left);
      else this.perClient.delete(client);
    }
    const sink = connection.transport;
    if (sink && sink.kind === 'LongPolling') {
      this.retired.set(connection.token, { sink, untilMs: Date.now() + this.retireForMs });
    }
  }
}
