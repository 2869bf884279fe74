import type { Database, Statement } from 'better-sqlite3';
import type { NewOccurrence } from '../../EngineStore.js';
import { BLOCK_SEQS } from '../../common/reads/compactSeqBlocks.js';
import { insertInChunks } from './insertInChunks.js';
import { preparedStatement } from './preparedStatement.js';

const COLUMNS = `(id, schedule_ref, nominal_slot_at, scheduled_at, created_at, run_number, schedule_version, handler,
  misfire_kind, missed_from, missed_through, missed_count, missed_count_is_exact)`;
const ROW = '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';

function statementFor(db: Database, rows: number): Statement {
  return preparedStatement(
    db,
    `INSERT INTO pending_occurrences ${COLUMNS} VALUES ${Array.from({ length: rows }, () => ROW).join(', ')}
     ON CONFLICT (schedule_ref, nominal_slot_at) DO NOTHING`,
  );
}

/** What a compact occurrence reads from its schedule: its number (`occurrence_schedules`) and handler. */
export interface CompactParent {
  ref: number;
  handler: string;
}

/** The schedule's number for its compact occurrences, given on first use. */
export function scheduleRef(db: Database, scheduleId: string): number {
  preparedStatement(db, 'INSERT OR IGNORE INTO occurrence_schedules (schedule_id) VALUES (?)').run(scheduleId);
  return preparedStatement(db, 'SELECT ref FROM occurrence_schedules WHERE schedule_id = ?').pluck().get(scheduleId) as number;
}

/** The seq of the newest compact occurrence (0: none); rows inserted after this call get larger ones. */
export function lastCompactSeq(db: Database): number {
  return (preparedStatement(db, 'SELECT max(seq) FROM pending_occurrences').pluck().get() as number | null) ?? 0;
}

/** Rows per block, by block, schedule number and creation time (nested maps: no key built per row). */
type BlockCounts = Map<number, Map<number, Map<number, number>>>;

/** Adds `counts` to the compact rows' block counts, one upsert a block. */
function addBlockCounts(db: Database, counts: BlockCounts): void {
  const rows: number[][] = [];
  for (const [block, byRef] of counts) for (const [ref, byTime] of byRef) for (const [createdAt, n] of byTime) rows.push([ref, createdAt, block, n]);
  if (rows.length === 0) return;
  preparedStatement(
    db,
    `INSERT INTO compact_seq_blocks (schedule_ref, created_at, block, n)
       SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3 FROM json_each(?) WHERE true
       ON CONFLICT (schedule_ref, created_at, block) DO UPDATE SET n = n + excluded.n`,
  ).run(JSON.stringify(rows));
}

/**
 * Runs `insert` (inserts into `pending_occurrences` and nothing else, answering the rows written)
 * with the table's insert trigger stepped aside (migration 21), then counts the rows it wrote by
 * block itself. A rowid table gives a new row one more than the largest seq before it, so when
 * every row of `rows` was written, row i's seq is `afterSeq + 1 + i`: its block is known without
 * reading it back. When some were skipped (a slot already written), the rows above `afterSeq`
 * are counted in one grouped read.
 */
export function insertCountingBlocks(
  db: Database, rows: number, refAndCreatedAt: (i: number) => readonly [number, number], insert: () => number,
): number {
  const afterSeq = lastCompactSeq(db);
  preparedStatement(db, 'INSERT INTO compact_blocks_counted_ahead (one) VALUES (1)').run();
  let written: number;
  try {
    written = insert();
  } finally {
    preparedStatement(db, 'DELETE FROM compact_blocks_counted_ahead').run();
  }
  if (written === 0) return 0;
  if (written < rows) {
    preparedStatement(
      db,
      `INSERT INTO compact_seq_blocks (schedule_ref, created_at, block, n)
         SELECT schedule_ref, created_at, seq / ${BLOCK_SEQS}, COUNT(*) FROM pending_occurrences WHERE seq > ? GROUP BY 1, 2, 3
         ON CONFLICT (schedule_ref, created_at, block) DO UPDATE SET n = n + excluded.n`,
    ).run(afterSeq);
    return written;
  }
  const counts: BlockCounts = new Map();
  for (let i = 0; i < rows; i++) {
    const [ref, createdAt] = refAndCreatedAt(i);
    const block = Math.floor((afterSeq + 1 + i) / BLOCK_SEQS);
    let byRef = counts.get(block);
    if (byRef === undefined) counts.set(block, (byRef = new Map()));
    let byTime = byRef.get(ref);
    if (byTime === undefined) byRef.set(ref, (byTime = new Map()));
    byTime.set(createdAt, (byTime.get(createdAt) ?? 0) + 1);
  }
  addBlockCounts(db, counts);
  return written;
}

/**
 * Inserts Pending occurrences in their compact form (migration 15), many rows per statement, with
 * `ids[i]` as the id of `rows[i]`; `parents` gives each schedule's number and handler (an
 * occurrence's handler is stored only where it differs). A slot that already has a compact
 * occurrence is skipped. Their blocks are counted here, not by the insert trigger
 * (`insertCountingBlocks`). Returns how many rows were written.
 */
export function insertCompactOccurrences(
  db: Database,
  rows: readonly NewOccurrence[],
  ids: readonly string[],
  parents: ReadonlyMap<string, CompactParent>,
): number {
  const key: [number, number] = [0, 0];
  const refAndCreatedAt = (i: number) => {
    key[0] = parents.get(rows[i]!.parentTaskId)!.ref;
    key[1] = rows[i]!.createdAt;
    return key;
  };
  return insertCountingBlocks(db, rows.length, refAndCreatedAt, () => insertInChunks(rows.length, (n) => statementFor(db, n), (i, out) => {
    const r = rows[i]!;
    const parent = parents.get(r.parentTaskId)!;
    out.push(
      ids[i], parent.ref, r.nominalSlotAt, r.scheduledAt, r.createdAt, r.runNumber, r.scheduleVersion,
      r.handler === parent.handler ? null : r.handler,
      r.misfireKind, r.missedFrom, r.missedThrough, r.missedCount, r.missedCountIsExact,
    );
  }));
}

/** Compact occurrences written after `afterSeq`, per schedule id. */
export function countCompactAfter(db: Database, afterSeq: number): Map<string, number> {
  const rows = preparedStatement(
    db,
    `SELECT r.schedule_id AS id, COUNT(*) AS n FROM pending_occurrences p JOIN occurrence_schedules r ON r.ref = p.schedule_ref
      WHERE p.seq > ? GROUP BY p.schedule_ref`,
  ).all(afterSeq) as { id: string; n: number }[];
  return new Map(rows.map((r) => [r.id, r.n]));
}
