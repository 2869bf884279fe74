/**
 * Migration 21: the insert trigger of migration 20 steps aside for an insert whose writer counts
 * its own rows' blocks (the catch-up: `schedules/insertCompactOccurrences.ts`, one upsert a block
 * a transaction instead of one a row). The writer says so by a row in `compact_blocks_counted_ahead`,
 * written before its insert and deleted right after, inside its transaction: no other connection
 * ever sees it, and every other insert (a writer that does not count ahead, an older version's)
 * is counted by the trigger as before. Deletes keep their trigger (spill, cancel).
 */
export const migration021CompactBlocksCountedAhead = `
CREATE TABLE compact_blocks_counted_ahead (
  one INTEGER PRIMARY KEY CHECK (one = 1)
);
DROP TRIGGER tr_pending_occurrences_block_written;
CREATE TRIGGER tr_pending_occurrences_block_written AFTER INSERT ON pending_occurrences
  WHEN NOT EXISTS (SELECT 1 FROM compact_blocks_counted_ahead)
BEGIN
  INSERT INTO compact_seq_blocks (schedule_ref, created_at, block, n) VALUES (NEW.schedule_ref, NEW.created_at, NEW.seq >> 12, 1)
    ON CONFLICT (schedule_ref, created_at, block) DO UPDATE SET n = n + 1;
END;
`;
