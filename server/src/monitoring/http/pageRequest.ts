import type { Request } from 'express';
import type { PageRequest } from '../../storage/MonitoringStore.js';
import { SKIP_PARAM, TAKE_PARAM } from '../../contracts/index.js';
import { QueryParams } from './queryParams.js';

/** Paging of the audit, log and occurrence lists: skip and take with the catalogue's defaults and bounds. */
export function parsePageRequest(req: Request): PageRequest {
  const q = new QueryParams(req);
  return { skip: q.intOf(SKIP_PARAM), take: q.intOf(TAKE_PARAM) };
}
