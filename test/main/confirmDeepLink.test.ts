import { describe, expect, it } from 'vitest';
import { deepLinkConfirmed, deepLinkPrompt } from '../../src/main/deepLinks/confirmDeepLink.js';

const production = { name: 'Production', baseUrl: 'https://svc.example.com', isProduction: true };
const staging = { name: 'Staging', baseUrl: 'https://staging.example.com', isProduction: false };

describe('a deep link asks before it switches environment', () => {
  it('names the environment (production flagged), its address and what opens; Cancel is the default', () => {
    const taskId = '7d3c2a1e-0000-4000-8000-000000000001';
    const prompt = deepLinkPrompt(production, { kind: 'task', environmentId: 'prd', taskId });
    expect(prompt.message).toBe(`Open task ${taskId} in Production (PRODUCTION)?`);
    expect(prompt.detail).toContain('"Production" at https://svc.example.com');
    expect(prompt.buttons).toEqual(['Open', 'Cancel']);
    expect(prompt.defaultId).toBe(prompt.cancelId);
    expect(deepLinkPrompt(staging, { kind: 'route', environmentId: 'stg', path: '/tasks?status=Failed' }).message).toBe('Open the page /tasks?status=Failed in Staging?');
    expect(deepLinkPrompt(staging, { kind: 'inbox', environmentId: 'stg', burstId: 'b1' }).message).toBe('Open a group of failures in the inbox in Staging?');
  });

  it('only Open opens: Cancel, Escape or a closed box do not', () => {
    expect(deepLinkConfirmed(0)).toBe(true);
    expect(deepLinkConfirmed(1)).toBe(false);
    expect(deepLinkConfirmed(-1)).toBe(false);
  });
});
