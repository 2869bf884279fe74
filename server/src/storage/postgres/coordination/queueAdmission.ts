import type { PoolClient } from 'pg';
import type { QueueCapacities } from '../../EngineStore.js';

/**
 * Global queue capacity: the Queued rows of a capped queue are counted and added to under a
 * transaction advisory lock per (schema, queue), so instances never admit past the capacity
 * together. `room(queue)` answers how many more rows may become Queued in this transaction.
 *
 * Lock order: a transaction that needs any queue's lock takes every capped queue's lock at once,
 * in name order, before any other lock of the commit (task-key rows, rate windows), so two
 * instances never wait on each other in opposite orders, whatever order their changes come in.
 */
export class QueueAdmission {
  private readonly rooms = new Map<string, number>();
  private locked = false;
  constructor(
    private readonly c: PoolClient,
    private readonly schema: string,
    private readonly capacities: QueueCapacities,
  ) {}

  capped(queue: string): boolean {
    const cap = this.capacities.get(queue);
    return cap !== undefined && cap !== Infinity;
  }

  /** Locks the queue (once per transaction) and counts its room. Infinity for an uncapped queue. */
  async room(queue: string): Promise<number> {
    if (!this.capped(queue)) return Infinity;
    await this.lockAll();
    return this.rooms.get(queue)!;
  }

  /** Takes every capped queue's lock (in name order, once per transaction) and counts their rooms. */
  async lockAll(): Promise<void> {
    if (this.locked) return;
    this.locked = true;
    const queues = this.cappedQueues();
    if (queues.length === 0) return;
    for (const queue of queues) {
      await this.c.query(`SELECT pg_advisory_xact_lock(hashtext('svc_monitor.queue:' || $1 || ':' || $2))`, [this.schema, queue]);
    }
    const { rows } = await this.c.query<{ queue: string; n: number }>(
      `SELECT q.queue, (SELECT COUNT(*) FROM tasks t WHERE t.queue = q.queue AND t.status = 'Queued')::int AS n FROM unnest($1::text[]) AS q(queue)`,
      [queues],
    );
    for (const r of rows) this.rooms.set(r.queue, Math.max(0, this.capacities.get(r.queue)! - r.n));
  }

  /** Takes one place if there is room: 'Queued', else 'WaitingQueue'. */
  async admit(queue: string): Promise<'Queued' | 'WaitingQueue'> {
    const room = await this.room(queue);
    if (room === Infinity) return 'Queued';
    if (room <= 0) return 'WaitingQueue';
    this.rooms.set(queue, room - 1);
    return 'Queued';
  }

  /** Takes up to `n` places; returns how many were taken. */
  async take(queue: string, n: number): Promise<number> {
    const room = await this.room(queue);
    const taken = Math.min(room, n);
    if (room !== Infinity) this.rooms.set(queue, room - taken);
    return taken;
  }

  /** Capped queues, in a fixed order (locks taken in the same order by every instance). */
  cappedQueues(): string[] {
    return [...this.capacities.entries()].filter(([, cap]) => cap !== Infinity).map(([q]) => q).sort();
  }
}
