import type { Database } from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { getJson, insertTask, login, useServed } from '../../fixtures/server/servedMonitoring.js';
import { BACKEND } from '../../fixtures/server/monitoredStore.js';

/**
 * Key-substring search and argument search answer through their indexes (a trigram index of task
 * keys, search rows that carry the sort and filter columns). Whatever path a query takes, its page
 * and count must equal a plain scan of the task table with the same conditions and order.
 */
const SORT_COLUMNS: Record<string, string[]> = {
  CreatedAtUtc: ['created_at'],
  Type: ['type', 'created_at'],
  QueueName: ['queue', 'created_at'],
  Status: ['status', 'created_at'],
  ExecutionTimeMs: ['execution_time_ms'],
};

interface Case {
  search: Record<string, string>;
  /** The plain-scan condition of the search (over the task table, no index). */
  scan: string;
  args: (string | number)[];
}

const keyCase = (term: string): Case => ({
  search: { searchTerm: term },
  scan: `(instr(lower(type), lower(?)) > 0 OR instr(lower(handler), lower(?)) > 0 OR instr(lower(task_key), lower(?)) > 0)`,
  args: [term, term, term],
});
const argumentCase = (value: string): Case => ({ search: { requestSearch: value }, scan: `request LIKE ?`, args: [`%"${value}"%`] });

describe(`key and argument search through their indexes equal a plain scan on ${BACKEND}`, () => {
  let seeded: Database | undefined;
  const t0 = Date.UTC(2026, 10, 20, 8, 0, 0);
  const s = useServed({ loginRateLimit: false }, (db) => {
    seeded = db;
    const types = ['Shop.Orders.Export', 'Shop.Mail.Send', 'Ops.Cleanup'];
    const queues = ['default', 'mail', 'billing'];
    const statuses = ['Completed', 'Failed', 'Queued', 'Pending'];
    for (let i = 0; i < 240; i++) {
      // Keys of several shapes (lower and upper case, an underscore, none); three rows per
      // millisecond, so that ties in the sort columns are broken as the task table breaks them.
      const key = i % 4 === 0 ? `order-${i}` : i % 4 === 1 ? `ORDER-${i}X` : i % 10 === 2 ? `batch_${i}` : null;
      const status = statuses[(i * 7) % statuses.length]!;
      insertTask(db, {
        type: types[i % types.length]!,
        queue: queues[Math.floor(i / 5) % queues.length]!,
        status,
        task_key: key,
        request: `{"customer":"ACME-${i % 7}","order":"ORD-${i}"}`,
        created_at: t0 + Math.floor(i / 3),
        execution_time_ms: status === 'Completed' ? (i * 37) % 11 : null,
        is_recurring: i % 50 === 0 ? 1 : 0,
      });
    }
  });

  const cases: Case[] = [
    keyCase('order-1'), keyCase('ORDER-2'), keyCase('der-3'), keyCase('h_1'), keyCase('r-'), keyCase('1X'), keyCase('zzz-none'),
    argumentCase('ACME-3'), argumentCase('ORD-17'),
  ];
  const filters: { query: Record<string, string>; scan: string; args: (string | number)[] }[] = [
    { query: {}, scan: '', args: [] },
    { query: { queueName: 'mail' }, scan: 'queue = ?', args: ['mail'] },
    { query: { statuses: 'Failed' }, scan: 'status = ?', args: ['Failed'] },
    { query: { isRecurring: 'false' }, scan: 'is_recurring = 0', args: [] },
    { query: { taskType: 'Mail.Send' }, scan: `instr(lower(type), lower(?)) > 0`, args: ['Mail.Send'] },
    { query: { createdAfter: new Date(t0 + 30).toISOString() }, scan: 'created_at >= ?', args: [t0 + 30] },
  ];
  const sorts: [string, boolean][] = [['CreatedAtUtc', true], ['CreatedAtUtc', false], ['Type', false], ['QueueName', true], ['ExecutionTimeMs', true]];

  it('every search × filter × sort × page answers the ids and count of the plain scan', async () => {
    const token = await login(s.api);
    const pageSize = 7;
    let nonEmpty = 0;
    for (const c of cases) {
      for (const f of filters) {
        const conditions = [c.scan, f.scan].filter((x) => x !== '').join(' AND ');
        const args = [...c.args, ...f.args];
        const total = seeded!.prepare(`SELECT COUNT(*) FROM tasks NOT INDEXED WHERE ${conditions}`).pluck().get(...args) as number;
        if (total > pageSize) nonEmpty++;
        for (const [sortBy, desc] of sorts) {
          const dir = desc ? 'DESC' : 'ASC';
          const order = [...SORT_COLUMNS[sortBy]!, 'rowid'].map((col) => `${col} ${dir}`).join(', ');
          for (const page of [1, 2]) {
            const expected = seeded!
              .prepare(`SELECT id FROM tasks NOT INDEXED WHERE ${conditions} ORDER BY ${order} LIMIT ? OFFSET ?`)
              .pluck()
              .all(...args, pageSize, (page - 1) * pageSize) as string[];
            const query = new URLSearchParams({ ...c.search, ...f.query, sortBy, sortDescending: String(desc), page: String(page), pageSize: String(pageSize) });
            const r = await getJson(`${s.api}/tasks?${query}`, token);
            const label = query.toString();
            expect(r.status, label).toBe(200);
            expect(r.body.items.map((i: { id: string }) => i.id), label).toEqual(expected);
            expect(r.body.totalCount, label).toBe(total);
          }
        }
      }
    }
    // The cases are not vacuous: most search × filter pairs span more than one page.
    expect(nonEmpty).toBeGreaterThan(20);
  }, 240_000);
});
