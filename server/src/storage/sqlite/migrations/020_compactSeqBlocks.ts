/**
 * Migration 20: the compact Pending occurrences counted by block of 4,096 seqs, per schedule and
 * creation time (`compact_seq_blocks`), kept by triggers of `pending_occurrences` (+1 a row
 * written, -1 a row deleted; a block whose count reaches 0 is removed). A page deep in some
 * schedules' compact rows, in creation-time order then seq or in seq order, is found by summing
 * their blocks' counts up to the block that holds it, then reading that block's rows only (see
 * `reads/compactSeqBlocks.ts`): never the rows before it.
 */
export const migration020CompactSeqBlocks = `
CREATE TABLE compact_seq_blocks (
  schedule_ref INTEGER NOT NULL,
  created_at   INTEGER NOT NULL,
  block        INTEGER NOT NULL,   -- seq >> 12
  n            INTEGER NOT NULL,
  PRIMARY KEY (schedule_ref, created_at, block)
) WITHOUT ROWID;
INSERT INTO compact_seq_blocks (schedule_ref, created_at, block, n)
  SELECT schedule_ref, created_at, seq >> 12, COUNT(*) FROM pending_occurrences GROUP BY 1, 2, 3;
CREATE TRIGGER tr_pending_occurrences_block_written AFTER INSERT ON pending_occurrences
BEGIN
  INSERT INTO compact_seq_blocks (schedule_ref, created_at, block, n) VALUES (NEW.schedule_ref, NEW.created_at, NEW.seq >> 12, 1)
    ON CONFLICT (schedule_ref, created_at, block) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER tr_pending_occurrences_block_deleted AFTER DELETE ON pending_occurrences
BEGIN
  UPDATE compact_seq_blocks SET n = n - 1 WHERE schedule_ref = OLD.schedule_ref AND created_at = OLD.created_at AND block = OLD.seq >> 12;
  DELETE FROM compact_seq_blocks WHERE schedule_ref = OLD.schedule_ref AND created_at = OLD.created_at AND block = OLD.seq >> 12 AND n = 0;
END;
`;
