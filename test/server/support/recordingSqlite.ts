import type { Database } from 'better-sqlite3';
import type pg from 'pg';

interface Recorded {
  sql: string;
  args: unknown[];
}

/** Writes of SQLite's read models (written by the storage's task writer; PostgreSQL keeps its own). */
const READ_MODEL_WRITE = /^\s*(?:INSERT(?: OR IGNORE)? INTO|UPDATE|DELETE FROM)\s+(?:stat_|failure_groups_|task_search_rows|task_request_fts|task_key_fts|monitor_type_handlers|search_row_order)/i;

/**
 * A SQLite database whose writes (`prepare(sql).run(...)`) are also recorded, so that a test's
 * seed (plain SQL over the shared table layout) can be replayed on PostgreSQL statement by
 * statement: PostgreSQL's own triggers then build its read models from the same changes, and
 * identity columns take the same values as SQLite's rowids (same insert order from 1). Writes of
 * SQLite's own read models are not recorded. `replay` carries the writes recorded since the last
 * replay.
 */
export function recordingSqlite(db: Database): { db: Database; replay(client: pg.ClientBase): Promise<void> } {
  const log: Recorded[] = [];
  const proxy = new Proxy(db, {
    get(target, prop, receiver) {
      if (prop !== 'prepare') {
        const v = Reflect.get(target, prop, receiver) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      }
      return (sql: string) => {
        const st = target.prepare(sql);
        return new Proxy(st, {
          get(s, p, r) {
            const v = Reflect.get(s, p, r) as unknown;
            if (p === 'run') {
              return (...args: unknown[]) => {
                if (!READ_MODEL_WRITE.test(sql)) log.push({ sql, args });
                return st.run(...(args as []));
              };
            }
            return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(s) : v;
          },
        });
      };
    },
  });
  return {
    db: proxy,
    async replay(client) {
      for (const { sql, args } of log.splice(0)) {
        const { text, values } = toPostgres(sql, args);
        await client.query(text, values);
      }
    },
  };
}

/** `?` and `@name` placeholders → `$n`. */
function toPostgres(sql: string, args: unknown[]): { text: string; values: unknown[] } {
  const named = args.length === 1 && typeof args[0] === 'object' && args[0] !== null && !Array.isArray(args[0]);
  const values: unknown[] = [];
  if (named) {
    const obj = args[0] as Record<string, unknown>;
    const index = new Map<string, number>();
    const text = sql.replace(/@(\w+)/g, (_m, name: string) => {
      if (!index.has(name)) {
        values.push(obj[name]);
        index.set(name, values.length);
      }
      return `$${index.get(name)}`;
    });
    return { text, values };
  }
  const flat = args.flat();
  let i = 0;
  const text = sql.replace(/\?/g, () => {
    values.push(flat[i++]);
    return `$${values.length}`;
  });
  return { text, values };
}
