import { isDeepStrictEqual } from 'node:util';
import { openSqliteStorage } from '../../server/src/storage/sqlite/openSqliteStorage.js';
import { rebuildSearchRows } from '../../server/src/storage/sqlite/readModels/rebuildSearchRows.js';
import { openPostgresStorage } from '../../server/src/storage/postgres/openPostgresStorage.js';
import { snapshotReadModels } from '../fixtures/server/postgresReadModelSnapshot.js';
import { snapshotSqliteReadModels } from '../fixtures/server/sqliteReadModelSnapshot.js';
import type { FinalRow } from './history.js';

/** Every task row (compact occurrences included), as columns the checks read. */
const ROWS = (from: string) => `SELECT id, type, status, abandoned_count, parent_task_id,
  (is_recurring = 1 AND occurrence_mode = 'Durable' AND parent_task_id IS NULL) AS is_schedule FROM ${from}`;

/** The compact rows' block counts (compact_seq_blocks) that a recount of the rows does not give, one way then the other. */
const RECOUNT = 'SELECT schedule_ref, created_at, seq >> 12 AS block, COUNT(*) AS n FROM pending_occurrences GROUP BY 1, 2, 3';
const KEPT = 'SELECT schedule_ref, created_at, block, n FROM compact_seq_blocks';
const BLOCKS_APART = `SELECT (SELECT COUNT(*) FROM (${KEPT} EXCEPT ${RECOUNT}) a) AS kept_only, (SELECT COUNT(*) FROM (${RECOUNT} EXCEPT ${KEPT}) b) AS recount_only`;
const blocksApart = (r: { kept_only: number | string; recount_only: number | string }) =>
  Number(r.kept_only) + Number(r.recount_only) > 0 ? [`compact block counts differ from a recount: ${r.kept_only} kept only, ${r.recount_only} recounted only`] : [];

/**
 * Tasks an operator sent back to run (a retry, a bulk retry or a requeue: a status audit of theirs
 * to a status before the run). A bulk action takes the rows its own listing finds, which may be
 * more than the harness's listing a moment before: the store's record names them all.
 */
const SENT_BACK = `SELECT DISTINCT task_id FROM status_audit WHERE changed_by IS NOT NULL AND new_status IN ('Queued', 'Pending', 'WaitingQueue')`;

/**
 * The rows after the run (every process stopped), the tasks an operator sent back (SENT_BACK), and
 * whether the read models and the search rows equal what a rebuild from the task rows makes (the
 * rebuild runs on the store, after the rows are read).
 */
export async function readFinalState(
  backend: 'sqlite' | 'postgres', location: string,
): Promise<{ rows: FinalRow[]; sentBack: string[]; violations: string[]; checked: Record<string, number> }> {
  const violations: string[] = [];
  const differs = (what: string, live: unknown, rebuilt: unknown) => {
    if (!isDeepStrictEqual(live, rebuilt)) violations.push(`${what} differ from a rebuild: ${firstDifference(live, rebuilt)}`);
  };
  if (backend === 'sqlite') {
    const storage = openSqliteStorage({ file: location });
    try {
      const db = storage.db;
      const rows = (db.prepare(`${ROWS('tasks')} UNION ALL ${ROWS('pending_occurrence_tasks')}`).all() as (Omit<FinalRow, 'is_schedule'> & { is_schedule: number })[])
        .map((r) => ({ ...r, is_schedule: r.is_schedule === 1 }));
      const live = snapshotSqliteReadModels(db);
      // The store as the run left it, before the rebuild rewrites its read models: kept with the
      // run's logs when a check fails (the run's directory is removed otherwise).
      db.exec(`VACUUM INTO '${location.replaceAll("'", "''")}.as-left'`);
      storage.rebuildReadModels();
      differs('read models', live, snapshotSqliteReadModels(db));
      const searchRows = () => db.prepare('SELECT task_id, created_at, queue, type, is_recurring, is_occurrence, status FROM task_search_rows ORDER BY task_id').all();
      const liveSearch = searchRows();
      rebuildSearchRows(db);
      differs('search rows', liveSearch, searchRows());
      violations.push(...blocksApart(db.prepare(BLOCKS_APART).get() as { kept_only: number; recount_only: number }));
      const sentBack = (db.prepare(SENT_BACK).all() as { task_id: string }[]).map((r) => r.task_id);
      return { rows, sentBack, violations, checked: { readModels: 1, searchRows: liveSearch.length } };
    } finally {
      storage.close();
    }
  }
  const storage = await openPostgresStorage({ connectionString: location, poolSize: 2, rollupIntervalMs: 1_000_000 });
  try {
    const rows = (await storage.query<FinalRow & { is_recurring: number }>(
      `SELECT id, type, status, abandoned_count, parent_task_id, (is_recurring = 1 AND occurrence_mode = 'Durable' AND parent_task_id IS NULL) AS is_schedule FROM tasks`,
    )).rows.map((r) => ({ ...r, abandoned_count: Number(r.abandoned_count) }));
    const live = await snapshotReadModels(storage);
    await storage.rebuildReadModels();
    differs('read models', live, await snapshotReadModels(storage));
    // The search rows (one per task: its request's words) as a rebuild makes them from the tasks.
    const { rows: search } = await storage.query<{ missing: string; extra: string; wrong: string }>(`SELECT
      (SELECT count(*) FROM tasks t WHERE NOT EXISTS (SELECT 1 FROM task_search s WHERE s.seq = t.seq)) AS missing,
      (SELECT count(*) FROM task_search s WHERE NOT EXISTS (SELECT 1 FROM tasks t WHERE t.seq = s.seq)) AS extra,
      (SELECT count(*) FROM tasks t JOIN task_search s ON s.seq = t.seq WHERE s.words IS DISTINCT FROM svc_request_vector(t.request)) AS wrong`);
    const s = search[0]!;
    if (Number(s.missing) + Number(s.extra) + Number(s.wrong) > 0) violations.push(`search rows differ from a rebuild: ${s.missing} missing, ${s.extra} extra, ${s.wrong} wrong`);
    // The key rows (one per task that has a key: its seq, creation time and key) likewise.
    const { rows: keyRows } = await storage.query<{ missing: string; extra: string }>(`SELECT
      (SELECT count(*) FROM tasks t WHERE t.task_key IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM task_keys k WHERE k.seq = t.seq AND k.task_key = t.task_key AND k.created_at = t.created_at)) AS missing,
      (SELECT count(*) FROM task_keys k WHERE NOT EXISTS (
        SELECT 1 FROM tasks t WHERE t.seq = k.seq AND t.task_key = k.task_key AND t.created_at = k.created_at)) AS extra`);
    const k = keyRows[0]!;
    if (Number(k.missing) + Number(k.extra) > 0) violations.push(`key rows differ from the tasks' keys: ${k.missing} missing, ${k.extra} extra`);
    violations.push(...blocksApart((await storage.query<{ kept_only: string; recount_only: string }>(BLOCKS_APART)).rows[0]!));
    const sentBack = (await storage.query<{ task_id: string }>(SENT_BACK)).rows.map((r) => r.task_id);
    return { rows, sentBack, violations, checked: { readModels: 1, searchRows: rows.length } };
  } finally {
    await storage.close();
  }
}

/** The first table where two snapshots part, and in it the rows found on one side only (a few), short enough to print. */
function firstDifference(live: unknown, rebuilt: unknown): string {
  if (typeof live === 'object' && live !== null && typeof rebuilt === 'object' && rebuilt !== null) {
    for (const key of new Set([...Object.keys(live), ...Object.keys(rebuilt)])) {
      const a = (live as Record<string, unknown>)[key];
      const b = (rebuilt as Record<string, unknown>)[key];
      if (isDeepStrictEqual(a, b)) continue;
      if (!Array.isArray(a) || !Array.isArray(b)) return `${key}: live ${JSON.stringify(a).slice(0, 300)} / rebuilt ${JSON.stringify(b).slice(0, 300)}`;
      const only = (xs: unknown[], ys: unknown[]) => xs.filter((x) => !ys.some((y) => isDeepStrictEqual(x, y)));
      const [liveOnly, rebuiltOnly] = [only(a, b), only(b, a)];
      return `${key} (${a.length} live rows, ${b.length} rebuilt): live only ${JSON.stringify(liveOnly.slice(0, 4))}${liveOnly.length > 4 ? ` and ${liveOnly.length - 4} more` : ''}`
        + ` / rebuilt only ${JSON.stringify(rebuiltOnly.slice(0, 4))}${rebuiltOnly.length > 4 ? ` and ${rebuiltOnly.length - 4} more` : ''}`;
    }
  }
  return 'differ';
}
