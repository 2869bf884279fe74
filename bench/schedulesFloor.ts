// The floors of bench:schedules, plain multi-row INSERTs in transactions of the materializer's
// size, nothing else, from the catch-up's own rows read back column by column:
// - compact: the catch-up's compact occurrence rows (migration 15), what the catch-up writes, their
//   blocks of seqs counted as the catch-up counts them (migration 21: one upsert a block a transaction);
// - task rows: the same occurrences as task rows with their Pending audits, the row shape a
//   catch-up wrote before migration 15 (what each occurrence still becomes when it is due).
import type { Database } from 'better-sqlite3';
import { uuidV7 } from '../server/src/engine/uuidV7.js';
import { insertCountingBlocks } from '../server/src/storage/sqlite/schedules/insertCompactOccurrences.js';

const ROWS_PER_STATEMENT = 64;
const ROWS_PER_TRANSACTION = 20_000;

/** Rows of one source, column by column (texts as indexes into a list of distinct values): a catch-up is 1.44 M rows. */
export interface OccurrenceColumns {
  count: number;
  textColumns: readonly string[];
  numberColumns: readonly string[];
  texts: (string | null)[];
  text: Uint32Array[];
  number: Float64Array[];
}

/** The columns of a floor: what it reads back, where it writes. */
interface FloorShape {
  textColumns: readonly string[];
  numberColumns: readonly string[];
  /** The read of the rows back, in insertion order, given the column list. */
  select: (columns: string) => string;
  insert: (columns: string, tuples: string) => string;
  /** The constant values of each inserted row, after the read columns (the insert names their columns). */
  constants: { values: string };
  /** Whether each row gets a Pending status audit. */
  audited: boolean;
  /** Whether the rows' blocks of seqs are counted as the catch-up counts them (`insertCountingBlocks`: compact rows). */
  countsBlocks: boolean;
}

const TASK_ROWS: FloorShape = {
  textColumns: ['type', 'handler', 'request', 'queue', 'audit_level', 'time_zone_id', 'parent_task_id', 'misfire_kind'],
  numberColumns: ['created_at', 'scheduled_at', 'schedule_version', 'nominal_slot_at', 'run_number', 'missed_from', 'missed_through', 'missed_count', 'missed_count_is_exact'],
  select: (c) => `SELECT ${c} FROM (SELECT ${c}, rowid AS ord FROM tasks WHERE parent_task_id IS NOT NULL
    UNION ALL SELECT ${c}, rowid AS ord FROM pending_occurrence_tasks) ORDER BY ord`,
  insert: (columns, tuples) => `INSERT INTO tasks (id, ${columns}, status, is_recurring, occurrence_mode) VALUES ${tuples}`,
  constants: { values: `'Pending', 0, 'Durable'` },
  audited: true,
  countsBlocks: false,
};

const COMPACT_ROWS: FloorShape = {
  textColumns: ['handler', 'misfire_kind'],
  numberColumns: ['schedule_ref', 'nominal_slot_at', 'scheduled_at', 'created_at', 'run_number', 'schedule_version', 'missed_from', 'missed_through', 'missed_count', 'missed_count_is_exact'],
  select: (c) => `SELECT ${c} FROM pending_occurrences ORDER BY seq`,
  insert: (columns, tuples) => `INSERT INTO pending_occurrences (id, ${columns}) VALUES ${tuples}`,
  constants: { values: '' },
  audited: false,
  countsBlocks: true,
};

function readColumns(db: Database, shape: FloorShape): OccurrenceColumns {
  const columns = [...shape.textColumns, ...shape.numberColumns];
  const all = db.prepare(shape.select(columns.join(', '))).raw().all() as (string | number | null)[][];
  const texts: (string | null)[] = [];
  const textIndex = new Map<string | null, number>();
  const text = shape.textColumns.map(() => new Uint32Array(all.length));
  const number = shape.numberColumns.map(() => new Float64Array(all.length));
  all.forEach((row, i) => {
    shape.textColumns.forEach((_, c) => {
      const v = row[c] as string | null;
      let k = textIndex.get(v);
      if (k === undefined) textIndex.set(v, (k = texts.push(v) - 1));
      text[c]![i] = k;
    });
    shape.numberColumns.forEach((_, c) => {
      const v = row[shape.textColumns.length + c];
      number[c]![i] = v === null ? Number.NaN : (v as number);
    });
  });
  return { count: all.length, textColumns: shape.textColumns, numberColumns: shape.numberColumns, texts, text, number };
}

/** Every occurrence of the catch-up as the task row it stands for, in insertion order. */
export const readOccurrenceColumns = (db: Database) => readColumns(db, TASK_ROWS);
/** The catch-up's compact occurrence rows, in insertion order. */
export const readCompactColumns = (db: Database) => readColumns(db, COMPACT_ROWS);

function insertByHand(db: Database, shape: FloorShape, cols: OccurrenceColumns, now: number): void {
  const columns = [...shape.textColumns, ...shape.numberColumns];
  const extra = shape.constants.values === '' ? '' : `, ${shape.constants.values}`;
  const tuple = `(?, ${columns.map(() => '?').join(', ')}${extra})`;
  const statement = (n: number) => db.prepare(shape.insert(columns.join(', '), Array.from({ length: n }, () => tuple).join(', ')));
  const audits = (n: number) => db.prepare(`INSERT INTO status_audit (task_id, updated_at, new_status)
    VALUES ${Array.from({ length: n }, () => "(?, ?, 'Pending')").join(', ')}`);
  const full = { rows: statement(ROWS_PER_STATEMENT), audits: audits(ROWS_PER_STATEMENT) };
  const ref = cols.number[shape.numberColumns.indexOf('schedule_ref')];
  const createdAt = cols.number[shape.numberColumns.indexOf('created_at')];
  const key: [number, number] = [0, 0];
  const write = db.transaction((from: number, to: number) => {
    if (!shape.countsBlocks) return insertRange(from, to);
    insertCountingBlocks(db, to - from, (i) => {
      key[0] = ref![from + i]!;
      key[1] = createdAt![from + i]!;
      return key;
    }, () => {
      insertRange(from, to);
      return to - from;
    });
  });
  const insertRange = (from: number, to: number) => {
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
      (n === ROWS_PER_STATEMENT ? full.rows : statement(n)).run(rowParams);
      if (shape.audited) (n === ROWS_PER_STATEMENT ? full.audits : audits(n)).run(auditParams);
    }
  };
  for (let from = 0; from < cols.count; from += ROWS_PER_TRANSACTION) write.immediate(from, Math.min(cols.count, from + ROWS_PER_TRANSACTION));
}

/** The occurrences as task rows (new ids) and one Pending audit each, in batches; the caller times it. */
export const insertHandWrittenOccurrences = (db: Database, cols: OccurrenceColumns, now: number) => insertByHand(db, TASK_ROWS, cols, now);
/** The compact occurrence rows (new ids), in batches; the caller times it. */
export const insertHandWrittenCompact = (db: Database, cols: OccurrenceColumns, now: number) => insertByHand(db, COMPACT_ROWS, cols, now);
