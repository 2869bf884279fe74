/**
 * PostgreSQL migration 24: the compact Pending occurrences counted by block of 4,096 seqs, per
 * schedule and creation time, as SQLite's migration 20 (the same table, read by
 * `reads/compactSeqBlocks.ts`), kept by statement triggers over the rows a statement wrote or
 * deleted (one upsert a block a statement, blocks taken in key order so that two writers never
 * wait for each other in a cycle; a block whose count reaches 0 is removed). A TRUNCATE empties it.
 */
const fn = (name: string, body: string) => `
CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
BEGIN
  ${body}
  RETURN NULL;
END $fn$;
`;
const byBlock = (rows: string, sign: '' | '-') =>
  `SELECT schedule_ref, created_at, seq >> 12 AS block, ${sign}COUNT(*) AS n FROM ${rows} GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`;

export const pgMigration024CompactSeqBlocks = `
CREATE TABLE compact_seq_blocks (
  schedule_ref BIGINT NOT NULL,
  created_at   BIGINT NOT NULL,
  block        BIGINT NOT NULL,
  n            BIGINT NOT NULL,
  PRIMARY KEY (schedule_ref, created_at, block)
);
INSERT INTO compact_seq_blocks (schedule_ref, created_at, block, n) ${byBlock('pending_occurrences', '')};
${fn('svc_pending_occurrences_blocks_written', `INSERT INTO compact_seq_blocks AS b (schedule_ref, created_at, block, n) ${byBlock('new_rows', '')}
    ON CONFLICT (schedule_ref, created_at, block) DO UPDATE SET n = b.n + excluded.n;`)}
${fn('svc_pending_occurrences_blocks_deleted', `INSERT INTO compact_seq_blocks AS b (schedule_ref, created_at, block, n) ${byBlock('old_rows', '-')}
    ON CONFLICT (schedule_ref, created_at, block) DO UPDATE SET n = b.n + excluded.n;
  DELETE FROM compact_seq_blocks b USING (SELECT DISTINCT schedule_ref, created_at, seq >> 12 AS block FROM old_rows) d
    WHERE b.schedule_ref = d.schedule_ref AND b.created_at = d.created_at AND b.block = d.block AND b.n <= 0;`)}
${fn('svc_pending_occurrences_blocks_truncated', 'DELETE FROM compact_seq_blocks;')}
CREATE TRIGGER tr_pending_occurrences_blocks_written AFTER INSERT ON pending_occurrences REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION svc_pending_occurrences_blocks_written();
CREATE TRIGGER tr_pending_occurrences_blocks_deleted AFTER DELETE ON pending_occurrences REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION svc_pending_occurrences_blocks_deleted();
CREATE TRIGGER tr_pending_occurrences_blocks_truncated AFTER TRUNCATE ON pending_occurrences
  FOR EACH STATEMENT EXECUTE FUNCTION svc_pending_occurrences_blocks_truncated();
`;
