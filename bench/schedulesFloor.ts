// The floor of bench:schedules: the catch-up's occurrence rows and their Pending audits written by
// hand, plain multi-row INSERTs in transactions of the materializer's size, nothing else.
import type { Database } from 'better-sqlite3';
import { uuidV7 } from '../server/src/engine/uuidV7.js';

const TEXT_COLUMNS = ['type', 'handler', 'request', 'queue', 'audit_level', 'time_zone_id', 'parent_task_id', 'misfire_kind'] as const;
const NUMBER_COLUMNS = [
  'created_at', 'scheduled_at', 'schedule_version', 'nominal_slot_at', 'run_number',
  'missed_from', 'missed_through', 'missed_count', 'missed_count_is_exact',
] as const;
const COLUMNS = [...TEXT_COLUMNS, ...NUMBER_COLUMNS];
const ROWS_PER_STATEMENT = 64;
const ROWS_PER_TRANSACTION = 20_000;

/** The occurrence rows of a database, column by column (texts as indexes into a list of distinct values). */
export interface OccurrenceColumns {
  count: number;
  texts: string[];
  text: Uint32Array[];
  number: Float64Array[];
}

/** Reads every occurrence row's columns, in insertion order (compactly: a catch-up is 1.44 M rows). */
export function readOccurrenceColumns(db: Database): OccurrenceColumns {
  const count = db.prepare('SELECT COUNT(*) FROM tasks WHERE parent_task_id IS NOT NULL').pluck().get() as number;
  const texts: string[] = [];
  const textIndex = new Map<string, number>();
  const text = TEXT_COLUMNS.map(() => new Uint32Array(count));
  const number = NUMBER_COLUMNS.map(() => new Float64Array(count));
  let i = 0;
  const rows = db.prepare(`SELECT ${COLUMNS.join(', ')} FROM tasks WHERE parent_task_id IS NOT NULL ORDER BY rowid`).raw().iterate() as
    IterableIterator<(string | number | null)[]>;
  for (const row of rows) {
    TEXT_COLUMNS.forEach((_, c) => {
      const v = row[c] as string;
      let k = textIndex.get(v);
      if (k === undefined) textIndex.set(v, (k = texts.push(v) - 1));
      text[c]![i] = k;
    });
    NUMBER_COLUMNS.forEach((_, c) => {
      const v = row[TEXT_COLUMNS.length + c];
      number[c]![i] = v === null ? Number.NaN : (v as number);
    });
    i++;
  }
  return { count, texts, text, number };
}

/** Inserts the rows (new ids) and one Pending audit each, in batches; returns nothing, the caller times it. */
export function insertHandWrittenOccurrences(db: Database, cols: OccurrenceColumns, now: number): void {
  const tuple = `(?, ${COLUMNS.map(() => '?').join(', ')}, 'Pending', 0, 'Durable')`;
  const statement = (n: number) => db.prepare(`INSERT INTO tasks (id, ${COLUMNS.join(', ')}, status, is_recurring, occurrence_mode)
    VALUES ${Array.from({ length: n }, () => tuple).join(', ')}`);
  const audits = (n: number) => db.prepare(`INSERT INTO status_audit (task_id, updated_at, new_status)
    VALUES ${Array.from({ length: n }, () => "(?, ?, 'Pending')").join(', ')}`);
  const full = { tasks: statement(ROWS_PER_STATEMENT), audits: audits(ROWS_PER_STATEMENT) };
  const write = db.transaction((from: number, to: number) => {
    for (let start = from; start < to; start += ROWS_PER_STATEMENT) {
      const end = Math.min(to, start + ROWS_PER_STATEMENT);
      const rowParams: unknown[] = [];
      const auditParams: unknown[] = [];
      for (let i = start; i < end; i++) {
        const id = uuidV7();
        rowParams.push(id);
        for (const c of cols.text) rowParams.push(cols.texts[c[i]!]);
        for (const c of cols.number) rowParams.push(Number.isNaN(c[i]!) ? null : c[i]);
        auditParams.push(id, now);
      }
      const n = end - start;
      (n === ROWS_PER_STATEMENT ? full.tasks : statement(n)).run(rowParams);
      (n === ROWS_PER_STATEMENT ? full.audits : audits(n)).run(auditParams);
    }
  });
  for (let from = 0; from < cols.count; from += ROWS_PER_TRANSACTION) write.immediate(from, Math.min(cols.count, from + ROWS_PER_TRANSACTION));
}
