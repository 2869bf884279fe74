import { AxiosError, AxiosHeaders } from 'axios';
import { describe, expect, it } from 'vitest';
import { describeError } from '../../src/renderer/platform/ApiError.js';
import { toApiError } from '../../src/renderer/platform/web/webApiClient.js';
import { createWebSessionStorage } from '../../src/renderer/platform/web/webSession.js';

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
  it('Retry-After as an HTTP date reads as the seconds until then', () => {
    const at = new Date(Date.now() + 90_000).toUTCString();
    const e = toApiError(axiosError(429, { type: 'about:blank', title: 'Too Many Requests', status: 429 }, { 'retry-after': at }));
    expect(e.retryAfterSeconds).toBeGreaterThanOrEqual(88);
    expect(e.retryAfterSeconds).toBeLessThanOrEqual(90);
    expect(describeError(e)).toBe('Too many attempts. Try again in 2 minutes.');
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
