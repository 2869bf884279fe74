import { AxiosError, AxiosHeaders } from 'axios';
import { describe, expect, it } from 'vitest';
import { describeError } from '../../src/renderer/platform/ApiError.js';
import { HTTP_ROUTES, routeFor, serializeQuery } from '../../src/renderer/platform/web/httpRoutes.js';
import { parseRetryAfter, toApiError } from '../../src/renderer/platform/web/webApiClient.js';
import { classifyStartError } from '../../src/renderer/platform/web/webLive.js';
import { createWebSessionStorage } from '../../src/renderer/platform/web/webSession.js';

describe('web platform: operation → HTTP route (spec §4)', () => {
  it('maps every catalogue operation', () => {
    const id = 'a0000000-0000-4000-8000-000000000001';
    const seen = Object.keys(HTTP_ROUTES).map((op) => {
      const r = routeFor(op as keyof typeof HTTP_ROUTES, { id, name: 'q 1', username: 'u', password: 'p', token: 't' } as never);
      return `${r.method} ${r.path}`;
    });
    expect(seen).toEqual([
      'GET /config',
      'POST /auth/login',
      'POST /auth/magic',
      'POST /auth/validate',
      'GET /tasks',
      'GET /tasks/counts',
      `GET /tasks/${id}`,
      `GET /tasks/${id}/status-audit`,
      `GET /tasks/${id}/runs-audit`,
      `GET /tasks/${id}/execution-logs`,
      `GET /tasks/${id}/occurrences`,
      'GET /dashboard/overview',
      'GET /dashboard/recent-activity',
      'GET /queues',
      'GET /queues/q%201/tasks',
      'GET /statistics/success-rate-trend',
      'GET /statistics/task-types',
      'GET /statistics/execution-times',
      `POST /management/tasks/${id}/requeue`,
      `POST /management/tasks/${id}/resume`,
      `POST /management/tasks/${id}/cancel`,
    ]);
  });

  it('repeats statuses and leaves unset parameters out', () => {
    const r = routeFor('tasks.list', { statuses: ['Failed', 'Queued'], queueName: 'default', onlyCatchUp: false, page: 2 });
    expect(serializeQuery(r.query)).toBe('statuses=Failed&statuses=Queued&queueName=default&onlyCatchUp=false&page=2');
    expect(serializeQuery(routeFor('tasks.occurrences', { id: 'x', nonTerminalOnly: true, skip: 20, take: 20 }).query)).toBe('nonTerminalOnly=true&skip=20&take=20');
  });

  it('login posts the credentials as the body', () => {
    expect(routeFor('auth.login', { username: 'admin', password: 'secret' }).body).toEqual({ username: 'admin', password: 'secret' });
    expect(routeFor('auth.magic', { token: 'm' }).body).toEqual({ token: 'm' });
  });
});

describe('web platform: errors', () => {
  function axiosError(status: number, data: unknown, headers: Record<string, string> = {}): AxiosError {
    const h = new AxiosHeaders(headers);
    return new AxiosError('Request failed', 'ERR_BAD_REQUEST', undefined, undefined, { status, statusText: '', data, headers: h, config: { headers: h } });
  }
  it('a 429 carries Retry-After and reads as a wait time', () => {
    const e = toApiError(axiosError(429, { type: 'about:blank', title: 'Too Many Requests', status: 429 }, { 'retry-after': '840' }));
    expect(e.status).toBe(429);
    expect(e.retryAfterSeconds).toBe(840);
    expect(describeError(e)).toBe('Too many attempts. Try again in 14 minutes.');
  });
  it('a problem body gives the message', () => {
    const e = toApiError(axiosError(400, { type: 'about:blank', title: 'Bad Request', status: 400, detail: 'sortBy must be one of …' }));
    expect(e.message).toBe('sortBy must be one of …');
    expect(e.problem?.status).toBe(400);
  });
  it('no response is status 0 (network)', () => {
    expect(toApiError(new AxiosError('Network Error', 'ERR_NETWORK')).status).toBe(0);
  });
  it('Retry-After as an HTTP date', () => {
    const now = Date.parse('2026-11-23T00:00:00Z');
    expect(parseRetryAfter('Mon, 23 Nov 2026 00:01:00 GMT', now)).toBe(60);
    expect(parseRetryAfter('garbage', now)).toBeUndefined();
  });
  it('classifies hub start failures: 404 = no hub (standalone), 401 = refused, else retry', () => {
    expect(classifyStartError(new Error("Failed to complete negotiation with the server: Error: Not Found: Status code '404'"))).toBe('unavailable');
    expect(classifyStartError(new Error("Failed to complete negotiation with the server: Error: Unauthorized: Status code '401'"))).toBe('unauthorized');
    expect(classifyStartError(new Error('Failed to fetch'))).toBe('retry');
  });
});

describe('web platform: session in sessionStorage', () => {
  it('saves, loads and clears; garbage reads as no session', () => {
    const s = createWebSessionStorage(window.sessionStorage);
    s.save({ username: 'admin', canManage: false, token: 'jwt', expiresAt: '2030-01-01T00:00:00Z' });
    expect(s.load()).toEqual({ username: 'admin', canManage: false, token: 'jwt', expiresAt: '2030-01-01T00:00:00Z' });
    s.clear();
    expect(s.load()).toBeNull();
    window.sessionStorage.setItem('svc-monitoring.session', '{not json');
    expect(s.load()).toBeNull();
  });
});
