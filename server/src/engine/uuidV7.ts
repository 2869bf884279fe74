import { randomFillSync } from 'node:crypto';

const pool = Buffer.alloc(8 * 512);
let poolOffset = pool.length;
let lastMs = -1;
let sequence = 0;
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/**
 * A time-ordered GUID (RFC 9562 UUID version 7: 48-bit Unix ms, 12-bit sequence, 62 random bits),
 * monotonic within this process. Task rows (dispatched, recurring and occurrences) use it so
 * that rows written together sit together in the primary-key and status-audit indexes: a
 * group commit (or a catch-up burst of a million occurrences) appends to a few index pages
 * instead of rewriting one random page per task.
 */
export function uuidV7(nowMs: number = Date.now()): string {
  if (nowMs > lastMs) {
    lastMs = nowMs;
    sequence = 0;
  } else if (++sequence > 0xfff) {
    lastMs++;
    sequence = 0;
  }
  if (poolOffset + 8 > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const r = poolOffset;
  poolOffset += 8;
  const ms = lastMs;
  const hi = Math.floor(ms / 0x10000); // top 32 bits
  const lo = ms % 0x10000; // low 16 bits
  return (
    HEX[(hi >>> 24) & 0xff]! + HEX[(hi >>> 16) & 0xff]! + HEX[(hi >>> 8) & 0xff]! + HEX[hi & 0xff]! + '-' +
    HEX[(lo >>> 8) & 0xff]! + HEX[lo & 0xff]! + '-' +
    HEX[0x70 | (sequence >>> 8)]! + HEX[sequence & 0xff]! + '-' +
    HEX[0x80 | (pool[r]! & 0x3f)]! + HEX[pool[r + 1]!]! + '-' +
    HEX[pool[r + 2]!]! + HEX[pool[r + 3]!]! + HEX[pool[r + 4]!]! + HEX[pool[r + 5]!]! + HEX[pool[r + 6]!]! + HEX[pool[r + 7]!]!
  );
}
