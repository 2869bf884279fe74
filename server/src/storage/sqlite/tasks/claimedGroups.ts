import { managedGroup } from '../management/managedGroup.js';
import type { RunnableTaskRow } from './TaskRow.js';
import type { TaskGroup } from '../readModels/readModelDeltas.js';

/** A claimed row's group, and its rowid when the claim read it (null: end the run by its id). */
export interface ClaimedGroup extends TaskGroup {
  rowKey: number | null;
  /** The reservation the claim wrote (a later claim of the same row writes another). */
  reservedAt: number;
  /** The ForeignWrites epoch at which the row was last known reserved here. */
  epoch: number;
}

/**
 * The group columns (queue, type, recurring, occurrence, creation time) of the rows this store
 * claimed (reserved) and whose runs have not ended yet. Nothing changes those columns while a row is
 * reserved or InProgress, so a run end can count its status move from what the claim read instead of asking
 * the UPDATE to return them (RETURNING costs about half as much again as the UPDATE itself).
 * An entry left behind by a claim whose transaction rolled back is harmless: it describes the same
 * row, and a later claim of that row replaces it. A run end without an entry reads the row back.
 */
export class ClaimedGroups {
  private readonly groups = new Map<string, ClaimedGroup>();

  remember(row: RunnableTaskRow & { row_key?: number }, epoch: number): void {
    const g = managedGroup(row);
    this.groups.set(row.id, {
      queue: g.queue, type: g.type, is_recurring: g.is_recurring, is_occurrence: g.is_occurrence, created_at: g.created_at, rowKey: row.row_key ?? null,
      reservedAt: row.reserved_at, epoch,
    });
  }

  /** The group of a claimed row, kept (its start is written; its end comes later). */
  peek(id: string): ClaimedGroup | undefined {
    return this.groups.get(id);
  }

  /** The group of a claimed row, forgotten as it is handed out (each run ends once). */
  take(id: string): ClaimedGroup | undefined {
    const g = this.groups.get(id);
    if (g !== undefined) this.groups.delete(id);
    return g;
  }

  forget(id: string): void {
    this.groups.delete(id);
  }

  /** Rows remembered (claimed here, their runs not ended, their reservations not dropped). */
  get size(): number {
    return this.groups.size;
  }

  clear(): void {
    this.groups.clear();
  }
}
