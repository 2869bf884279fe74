import type { Request } from 'express';
import type { PageRequest } from '../../storage/MonitoringStore.js';
import { QueryParams } from './queryParams.js';

/** §4.5 / §8: skip clamped to ≥ 0 (default 0), take clamped to 0..500 (default 100). */
export function parsePageRequest(req: Request): PageRequest {
  const q = new QueryParams(req);
  return { skip: q.int('skip', 0, 0, Number.MAX_SAFE_INTEGER), take: q.int('take', 100, 0, 500) };
}
