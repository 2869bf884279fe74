import { createHash, timingSafeEqual } from 'node:crypto';

/** Compares two secrets in constant time (digests of equal length, whatever the inputs). */
export function constantTimeEquals(a: string, b: string): boolean {
  const da = createHash('sha256').update(a, 'utf8').digest();
  const db = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(da, db);
}
