import type { PoolClient } from 'pg';
import type { QueueCapacities } from '../../EngineStore.js';

/**
 * Global queue capacity: the Queued rows of a capped queue are counted and added to under a
 * transaction advisory lock per (schema, queue), so instances never admit past the capacity
 * together. `room(queue)` answers how many more rows may become Queued in this transaction.
 */
export class QueueAdmission {
  private readonly rooms = new Map<string, number>();
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
    let room = this.rooms.get(queue);
    if (room === undefined) {
      await this.c.query(`SELECT pg_advisory_xact_lock(hashtext('svc_monitor.queue:' || $1 || ':' || $2))`, [this.schema, queue]);
      const { rows } = await this.c.query<{ n: number }>(`SELECT COUNT(*) AS n FROM tasks WHERE queue = $1 AND status = 'Queued'`, [queue]);
      room = Math.max(0, this.capacities.get(queue)! - rows[0]!.n);
      this.rooms.set(queue, room);
    }
    return room;
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
