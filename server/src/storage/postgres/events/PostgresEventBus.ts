import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { ClientBase, QueryResult } from 'pg';
import type { SvcEvent } from '../../../contracts/index.js';
import { describeConnectionError } from '../connection/describeConnectionError.js';
import type { PostgresTarget } from '../PostgresStorage.js';
import { MAX_INLINE_PAYLOAD_BYTES, PAYLOAD_RETENTION_MS, eventsChannel, wakeChannel } from './channels.js';

export interface PostgresEventBusOptions {
  connectionString: string;
  searchPath: string;
  types: pg.CustomTypesConfig;
  target: PostgresTarget;
  query: (sql: string, params?: readonly unknown[]) => Promise<QueryResult>;
  onConnectionError: (err: Error) => void;
}

/** One NOTIFY on the events channel: the publishing bus, and the event or the id of its stored payload. */
interface EventNotice {
  o: string;
  e?: SvcEvent;
  ref?: number;
}

type EventListener = (e: SvcEvent, origin: string) => void;
type WakeListener = (origin: string) => void;
type Queryable = Pick<ClientBase, 'query'>;

const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 5_000;

/**
 * Events and wake-ups across every process on one PostgreSQL store (LISTEN/NOTIFY):
 * - `publish(events)` NOTIFYs each engine event on the events channel (inside the caller's
 *   transaction when a client is given, so listeners see only committed changes); an event over
 *   the NOTIFY size limit is stored in event_payloads and travels by id;
 * - `wake()` NOTIFYs the wake channel (new or due work);
 * - `on('event' | 'wake')` subscribes; one dedicated listening connection is opened on the
 *   first subscription and re-opened with backoff when lost (polling stays the fallback).
 * Each bus has an `id`; notices carry it so a process can skip its own events.
 */
export class PostgresEventBus {
  readonly id = randomUUID();
  readonly eventsChannel: string;
  readonly wakeChannel: string;
  private readonly emitter = new EventEmitter();
  private client: pg.Client | undefined;
  private connecting: Promise<void> | undefined;
  private closed = false;
  private reconnectDelay = RECONNECT_MIN_MS;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private readonly schema: string;
  private chain: Promise<void> = Promise.resolve();
  private fetching = 0;

  constructor(private readonly o: PostgresEventBusOptions) {
    this.schema = /search_path="([^"]+)"/.exec(o.searchPath)?.[1] ?? 'svc_monitor';
    this.eventsChannel = eventsChannel(this.schema);
    this.wakeChannel = wakeChannel(this.schema);
    this.emitter.setMaxListeners(0);
  }

  /** Whether the listening connection is up. */
  get listening(): boolean {
    return this.client !== undefined;
  }

  /** NOTIFYs the events (in one statement); large ones are stored and sent by id. */
  async publish(events: readonly SvcEvent[], client?: Queryable): Promise<void> {
    if (events.length === 0) return;
    const q: Queryable = client ?? { query: this.o.query as Queryable['query'] };
    const payloads: string[] = [];
    for (const e of events) {
      const inline = JSON.stringify({ o: this.id, e } satisfies EventNotice);
      if (Buffer.byteLength(inline) <= MAX_INLINE_PAYLOAD_BYTES) {
        payloads.push(inline);
        continue;
      }
      const now = Date.now();
      const { rows } = await q.query<{ id: number }>(
        `INSERT INTO event_payloads (created_at, payload) VALUES ($1, $2) RETURNING id`,
        [now, JSON.stringify(e)],
      );
      await q.query(`DELETE FROM event_payloads WHERE created_at < $1`, [now - PAYLOAD_RETENTION_MS]);
      payloads.push(JSON.stringify({ o: this.id, ref: rows[0]!.id } satisfies EventNotice));
    }
    await q.query(`SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p`, [this.eventsChannel, payloads]);
  }

  /** Wakes idle workers of every instance (new or due work); `origin` names the sender (default: this bus). */
  async wake(client?: Queryable, origin: string = this.id): Promise<void> {
    const q: Queryable = client ?? { query: this.o.query as Queryable['query'] };
    await q.query(`SELECT pg_notify($1, $2)`, [this.wakeChannel, origin]);
  }

  /**
   * 'event': every engine event published on the store (`origin` is the publishing bus id);
   * 'wake': a wake-up from any process (`origin` likewise).
   */
  on(kind: 'event', listener: (e: SvcEvent, origin: string) => void): this;
  on(kind: 'wake', listener: (origin: string) => void): this;
  on(kind: 'event' | 'wake', listener: EventListener | WakeListener): this {
    this.emitter.on(kind, listener as (...args: unknown[]) => void);
    void this.ensureListening();
    return this;
  }

  off(kind: 'event' | 'wake', listener: EventListener | WakeListener): this {
    this.emitter.off(kind, listener as (...args: unknown[]) => void);
    return this;
  }

  /** Resolves once the listening connection is up (it is opened on the first subscription). */
  ready(): Promise<void> {
    return this.ensureListening();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.emitter.removeAllListeners();
    const c = this.client;
    this.client = undefined;
    if (c) await c.end().catch(() => undefined);
  }

  private ensureListening(): Promise<void> {
    if (this.closed || this.client) return Promise.resolve();
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async connect(): Promise<void> {
    const c = new pg.Client({
      connectionString: this.o.connectionString,
      options: this.o.searchPath,
      types: this.o.types,
      application_name: 'svc-monitor-listener',
    });
    c.on('error', (err) => this.lost(c, err));
    c.on('end', () => this.lost(c, new Error('the listening connection ended')));
    c.on('notification', (n) => this.deliver(n.channel, n.payload ?? ''));
    try {
      await c.connect();
      await c.query(`LISTEN "${this.eventsChannel}"`);
      await c.query(`LISTEN "${this.wakeChannel}"`);
    } catch (err) {
      c.removeAllListeners('end');
      await c.end().catch(() => undefined);
      this.o.onConnectionError(new Error(describeConnectionError(err, this.o.target)));
      this.scheduleReconnect();
      return;
    }
    if (this.closed) {
      await c.end().catch(() => undefined);
      return;
    }
    this.client = c;
    this.reconnectDelay = RECONNECT_MIN_MS;
  }

  private lost(c: pg.Client, err: Error): void {
    if (this.client !== c) return;
    this.client = undefined;
    this.o.onConnectionError(err);
    c.removeAllListeners('end');
    void c.end().catch(() => undefined);
    // Work may have arrived while nobody listened: a wake lets pollers look now.
    this.emitter.emit('wake', '');
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer) return;
    const delay = this.reconnectDelay;
    this.reconnectDelay = Math.min(RECONNECT_MAX_MS, this.reconnectDelay * 2);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      if (this.emitter.listenerCount('event') + this.emitter.listenerCount('wake') > 0) void this.ensureListening();
    }, delay);
    this.reconnectTimer.unref();
  }

  private deliver(channel: string, payload: string): void {
    if (channel === this.wakeChannel) {
      this.emitter.emit('wake', payload);
      return;
    }
    if (channel !== this.eventsChannel) return;
    let notice: EventNotice;
    try {
      notice = JSON.parse(payload) as EventNotice;
    } catch {
      return;
    }
    // Events are delivered in NOTIFY order, a stored payload holding back the ones after it.
    const origin = notice.o;
    if (notice.e) {
      const e = notice.e;
      if (this.fetching === 0) this.emitter.emit('event', e, origin);
      else this.chain = this.chain.then(() => void this.emitter.emit('event', e, origin));
      return;
    }
    if (typeof notice.ref !== 'number') return;
    const ref = notice.ref;
    this.fetching++;
    const fetched = this.o
      .query(`SELECT payload FROM event_payloads WHERE id = $1`, [ref])
      .then((r) => (r.rows[0] as { payload?: string } | undefined)?.payload)
      .catch((err: Error) => {
        this.o.onConnectionError(err);
        return undefined;
      });
    this.chain = this.chain
      .then(() => fetched)
      .then((text) => {
        if (text !== undefined) this.emitter.emit('event', JSON.parse(text) as SvcEvent, origin);
      })
      .catch(() => undefined)
      .finally(() => {
        this.fetching--;
      });
  }
}
