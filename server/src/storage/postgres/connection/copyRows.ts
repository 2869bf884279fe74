import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** A column COPY writes: its name and its type (the binary format carries values as the server stores them). */
export interface CopyColumn {
  name: string;
  type: 'text' | 'int8' | 'int4';
}

/** A value of a `CopyColumn`: a string for text, an integer for int8 and int4, or NULL. */
export type CopyValue = string | number | null;

/** Bytes per chunk handed to the COPY stream (the server stores one while the next is built). */
const CHUNK_BYTES = 1 << 20;
const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
const TWO_32 = 2 ** 32;

/**
 * COPY's binary format, a chunk at a time: the header (signature, no flags, no extension), then
 * per row its field count and each field as a 32-bit length (-1: NULL) and its bytes (int8, int4
 * big-endian; text UTF-8), then the trailer (-1 fields).
 */
function* binaryChunks(columns: readonly CopyColumn[], count: number, row: (i: number) => readonly CopyValue[]): Generator<Buffer> {
  let buf = Buffer.allocUnsafe(CHUNK_BYTES);
  let at = 0;
  const room = (bytes: number) => {
    if (at + bytes <= buf.length) return null;
    const full = buf.subarray(0, at);
    buf = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, bytes));
    at = 0;
    return full;
  };
  SIGNATURE.copy(buf, 0);
  at = buf.writeInt32BE(0, buf.writeInt32BE(0, SIGNATURE.length));
  for (let i = 0; i < count; i++) {
    const values = row(i);
    let need = 2;
    for (let k = 0; k < columns.length; k++) {
      const v = values[k];
      need += 4 + (typeof v === 'string' ? v.length * 3 : 8);
    }
    const full = room(need);
    if (full !== null) yield full;
    at = buf.writeInt16BE(columns.length, at);
    for (let k = 0; k < columns.length; k++) {
      const v = values[k] ?? null;
      if (v === null) {
        at = buf.writeInt32BE(-1, at);
      } else if (columns[k]!.type === 'text') {
        const len = buf.write(String(v), at + 4, 'utf8');
        buf.writeInt32BE(len, at);
        at += 4 + len;
      } else if (columns[k]!.type === 'int8') {
        const n = Number(v);
        const hi = Math.floor(n / TWO_32);
        at = buf.writeInt32BE(8, at);
        at = buf.writeInt32BE(hi, at);
        at = buf.writeUInt32BE(n - hi * TWO_32, at);
      } else {
        at = buf.writeInt32BE(4, at);
        at = buf.writeInt32BE(Number(v), at);
      }
    }
  }
  const full = room(2);
  if (full !== null) yield full;
  at = buf.writeInt16BE(-1, at);
  yield buf.subarray(0, at);
}

/**
 * Writes `count` rows into `table` with one COPY FROM STDIN in binary format on `c`, `row(i)`
 * giving row i's values in the order of `columns` (integers must fit their column: int8 within
 * ±2^53, int4 within 32 bits; the same array may be given for every row: a row's values are
 * encoded before the next row is asked for). COPY fires the table's statement triggers as an INSERT does
 * (transition table included) and checks its unique indexes, but has no ON CONFLICT: the caller
 * leaves out the rows a unique index would refuse. Returns how many rows were written.
 */
export async function copyRows(
  c: PoolClient, table: string, columns: readonly CopyColumn[], count: number, row: (i: number) => readonly CopyValue[],
): Promise<number> {
  if (count === 0) return 0;
  const stream = c.query(copyFrom(`COPY ${table} (${columns.map((col) => col.name).join(', ')}) FROM STDIN (FORMAT binary)`));
  await pipeline(Readable.from(binaryChunks(columns, count, row)), stream);
  return stream.rowCount;
}
