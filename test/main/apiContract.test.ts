import { AxiosHeaders, type AxiosResponse } from 'axios';
import { describe, expect, it } from 'vitest';
import { API_LIMITS, parameterNamesOf, TASK_SORT_FIELDS } from '../../server/src/contracts/index.js';
import { OPERATION_PARAMS, PROXIED_OPERATIONS } from '../../src/main/api/operationParams.js';
import { httpError } from '../../src/main/session/httpClient.js';

describe('desktop main: parameters checked against the route catalogue', () => {
  it('every proxied operation accepts exactly the parameters its route reads', () => {
    for (const op of PROXIED_OPERATIONS) {
      const accepted = Object.keys(OPERATION_PARAMS[op].shape).sort();
      expect(accepted, op).toEqual(parameterNamesOf(op).sort());
    }
  });

  it('the bounds are the server\'s: the largest page the server serves is accepted, one more refused', () => {
    expect(OPERATION_PARAMS['tasks.list'].safeParse({ page: API_LIMITS.maxPage }).success).toBe(true);
    expect(OPERATION_PARAMS['tasks.list'].safeParse({ page: API_LIMITS.maxPage + 1 }).success).toBe(false);
    for (const sortBy of TASK_SORT_FIELDS) expect(OPERATION_PARAMS['tasks.list'].safeParse({ sortBy }).success, sortBy).toBe(true);
  });
});

describe('desktop main: error answers', () => {
  const answer = (status: number, data: unknown, headers: Record<string, string> = {}): AxiosResponse =>
    ({ status, statusText: '', data, headers: new AxiosHeaders(headers), config: { headers: new AxiosHeaders() } }) as AxiosResponse;

  it('reads Retry-After as seconds and as an HTTP-date', () => {
    const problem = { type: 'about:blank', title: 'Too Many Requests', status: 429 };
    expect(httpError(answer(429, problem, { 'retry-after': '840' }), 'Login').retryAfterSeconds).toBe(840);
    const wait = httpError(answer(429, problem, { 'retry-after': new Date(Date.now() + 120_000).toUTCString() }), 'Login').retryAfterSeconds;
    expect(wait).toBeGreaterThanOrEqual(118);
    expect(wait).toBeLessThanOrEqual(120);
  });

  it('names the refused parameters of a 400', () => {
    const e = httpError(answer(400, { type: 'about:blank', title: 'Bad Request', status: 400, detail: 'One or more parameters are invalid.', errors: { sortBy: ['Not a sort field.'] } }), 'tasks.list');
    expect(e.message).toBe('tasks.list: One or more parameters are invalid. sortBy: Not a sort field.');
    expect(e.status).toBe(400);
    expect(e.code).toBe('http');
  });
});
