import type { Request } from 'express';
import { parseGuid } from './queryParams.js';

/** The `{id}` path segment as a lower-case GUID (400 naming `id` otherwise). */
export function pathId(req: Request): string {
  const raw = (req.params as Record<string, string | undefined>).id ?? '';
  return parseGuid('id', raw);
}
