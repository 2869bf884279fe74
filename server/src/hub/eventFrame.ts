import type { SvcEvent } from '../contracts/index.js';
import { invocationFrame } from './protocol.js';

export const EVENT_TARGET = 'SvcEvent';

const omitNulls = (_key: string, value: unknown): unknown => (value === null ? undefined : value);

/** One `SvcEvent` invocation with the event as its only argument; null fields omitted. */
export function eventFrame(event: SvcEvent, includeExecutionLogs: boolean): string {
  let payload: SvcEvent = event;
  if (!includeExecutionLogs && payload.executionLogs !== undefined) {
    const { executionLogs: _omitted, ...rest } = payload;
    payload = rest;
  }
  return invocationFrame(EVENT_TARGET, [payload], omitNulls);
}
