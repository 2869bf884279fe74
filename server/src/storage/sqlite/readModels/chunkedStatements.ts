import type { Database, Statement } from 'better-sqlite3';

/** Rows per multi-row statement (a few statement shapes per table, each prepared once per connection). */
export const CHUNK = 50;

/** `n` copies of a row's placeholder tuple, for a multi-row VALUES. */
export function rows(n: number, tuple: string): string {
  return Array.from({ length: n }, () => tuple).join(', ');
}

const statements = new WeakMap<Database, Map<string, Statement>>();

/** The statement `sql(n)` of kind `kind` for n rows, prepared once per connection (the text is built once too). */
export function statementFor(db: Database, kind: string, n: number, sql: (n: number) => string): Statement {
  let byKey = statements.get(db);
  if (byKey === undefined) statements.set(db, (byKey = new Map()));
  const key = `${kind}:${n}`;
  let st = byKey.get(key);
  if (st === undefined) byKey.set(key, (st = db.prepare(sql(n))));
  return st;
}

/** Runs `sql(rowsInChunk)` over `items` in chunks of CHUNK, each with the parameters `params(item)` appended. */
export function inChunks<T>(
  db: Database,
  kind: string,
  items: readonly T[],
  sql: (n: number) => string,
  params: (item: T, out: unknown[]) => void,
): void {
  for (let start = 0; start < items.length; start += CHUNK) {
    const chunk = items.length <= CHUNK ? items : items.slice(start, start + CHUNK);
    const values: unknown[] = [];
    for (const item of chunk) params(item, values);
    statementFor(db, kind, chunk.length, sql).run(values);
  }
}
