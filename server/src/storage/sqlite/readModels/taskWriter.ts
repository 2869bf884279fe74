import type { Database } from 'better-sqlite3';
import { applyReadModelDeltas } from './applyReadModelDeltas.js';
import { keptCounters } from './keptCounters.js';
import { ReadModelDeltas } from './readModelDeltas.js';

/** Runs `work` in one immediate transaction; see `createTaskWriter`. */
export type TaskWriter = <T>(work: (deltas: ReadModelDeltas) => T) => T;

const writers = new WeakMap<Database, TaskWriter>();
/** Transactions each connection's writer has run (committed or rolled back). */
const writes = new WeakMap<Database, { n: number }>();

/**
 * How many task-row transactions this connection's writer has begun: it moves with every write of
 * task rows made on this connection, whoever makes it (the engine's commits, a schedule cancel, a
 * bulk action). Other connections' writes are seen through PRAGMA data_version instead.
 */
export function taskWritesOn(db: Database): number {
  return writes.get(db)?.n ?? 0;
}

/**
 * The one way task rows are written on a SQLite connection: `work` runs inside an immediate
 * transaction with a fresh `ReadModelDeltas`, records every change it makes to task rows there,
 * and the collected deltas are written to the read models before the same transaction commits.
 * Nothing else maintains the read models (no triggers), so a writer that changes task rows
 * outside this function, or forgets to record a change, leaves them wrong: the rebuild-equivalence
 * test drives every writer to catch that. One writer per connection.
 */
export function taskWriter(db: Database): TaskWriter {
  let writer = writers.get(db);
  if (writer === undefined) {
    const count = { n: 0 };
    writes.set(db, count);
    const tx = db.transaction((work: (deltas: ReadModelDeltas) => unknown) => {
      count.n++;
      const deltas = new ReadModelDeltas(keptCounters(db));
      const result = work(deltas);
      applyReadModelDeltas(db, deltas);
      return result;
    });
    writer = <T>(work: (deltas: ReadModelDeltas) => T): T => tx.immediate(work) as T;
    writers.set(db, writer);
  }
  return writer;
}
