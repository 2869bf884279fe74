import type { OperatorAuditBulkDetails, OperatorAuditEntry } from '../../../contracts/index.js';
import type { OperatorAuditFilter, OperatorAuditRecord, OperatorAuditStore } from '../../OperatorAuditStore.js';
import { queryOne, type ReadDb } from '../reads/ReadDb.js';
import { toIso } from '../time.js';

interface Row {
  id: number;
  at: number;
  actor: string;
  auth_method: string | null;
  role: string | null;
  client_address: string | null;
  user_agent: string | null;
  action: string;
  target_id: string | null;
  result: string;
  status: number | null;
  message: string | null;
  bulk: string | null;
}

const COLUMNS = 'id, at, actor, auth_method, role, client_address, user_agent, action, target_id, result, status, message, bulk';
/** Longest text kept of a free-text field (user agents, messages, names come from callers). */
const MAX_TEXT = 1000;
/** Records deleted per statement by retention. */
const PRUNE_BATCH = 5000;
const clip = (v: string | undefined): string | null => (v === undefined ? null : v.slice(0, MAX_TEXT));

const toEntry = (r: Row): OperatorAuditEntry => ({
  id: Number(r.id),
  atUtc: toIso(Number(r.at)),
  actor: r.actor,
  method: (r.auth_method ?? undefined) as OperatorAuditEntry['method'],
  role: (r.role ?? undefined) as OperatorAuditEntry['role'],
  clientAddress: r.client_address ?? undefined,
  userAgent: r.user_agent ?? undefined,
  action: r.action as OperatorAuditEntry['action'],
  targetId: r.target_id ?? undefined,
  result: r.result as OperatorAuditEntry['result'],
  status: r.status ?? undefined,
  message: r.message ?? undefined,
  bulk: r.bulk === null ? undefined : (JSON.parse(r.bulk) as OperatorAuditBulkDetails),
});

/** The WHERE text and values of a filter (every condition an equality or a bound). */
function whereOf(f: OperatorAuditFilter): { sql: string; params: unknown[] } {
  const conditions: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, value: unknown) => {
    conditions.push(sql);
    params.push(value);
  };
  if (f.actor !== undefined) add('actor = ?', f.actor);
  if (f.action !== undefined) add('action = ?', f.action);
  if (f.target !== undefined) add('target_id = ?', f.target);
  if (f.result !== undefined) add('result = ?', f.result);
  if (f.fromMs !== undefined) add('at >= ?', f.fromMs);
  if (f.toMs !== undefined) add('at <= ?', f.toMs);
  return { sql: conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '', params };
}

/**
 * The operator audit over either backend's statements: every statement answers rows (a write
 * returns its ids), so one `query` serves both SQLite and PostgreSQL.
 */
export function createOperatorAuditStore(db: ReadDb): OperatorAuditStore {
  return {
    async append(r: OperatorAuditRecord): Promise<number> {
      const row = await queryOne<{ id: number }>(
        db,
        `INSERT INTO operator_audit (at, actor, auth_method, role, client_address, user_agent, action, target_id, result, status, message, bulk)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
        [
          r.atMs,
          r.actor.slice(0, 200),
          r.method ?? null,
          r.role ?? null,
          r.clientAddress ?? null,
          clip(r.userAgent),
          r.action,
          r.targetId ?? null,
          r.result,
          r.status ?? null,
          clip(r.message),
          r.bulk === undefined ? null : JSON.stringify(r.bulk),
        ],
      );
      return Number(row.id);
    },
    async finishBulk(id, bulk) {
      await db.query(`UPDATE operator_audit SET bulk = ? WHERE id = ? AND bulk LIKE '%"state":"Running"%' RETURNING id`, [JSON.stringify(bulk), id]);
    },
    async list(f) {
      const where = whereOf(f);
      const [count, rows] = await Promise.all([
        queryOne<{ n: number }>(db, `SELECT COUNT(*) AS n FROM operator_audit ${where.sql}`, where.params),
        db.query<Row>(`SELECT ${COLUMNS} FROM operator_audit ${where.sql} ORDER BY id DESC LIMIT ? OFFSET ?`, [
          ...where.params,
          f.pageSize,
          (f.page - 1) * f.pageSize,
        ]),
      ]);
      const totalCount = Number(count.n);
      return { items: rows.map(toEntry), totalCount, page: f.page, pageSize: f.pageSize, totalPages: Math.ceil(totalCount / f.pageSize) };
    },
    async prune(cutoffMs) {
      // In batches: a long backlog neither holds the writer long nor comes back as one huge answer.
      let total = 0;
      for (;;) {
        const deleted = await db.query<{ id: number }>(
          `DELETE FROM operator_audit WHERE id IN (SELECT id FROM operator_audit WHERE at < ? ORDER BY at LIMIT ?) RETURNING id`,
          [cutoffMs, PRUNE_BATCH],
        );
        total += deleted.length;
        if (deleted.length < PRUNE_BATCH) return total;
      }
    },
  };
}
