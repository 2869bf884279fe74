import { describe, expect, it } from 'vitest';
import { takeMagicToken, takeSignInFragment } from '../../src/renderer/app/magicFragment.js';
import { singleSignOnFailure } from '../../src/renderer/app/singleSignOnFailure.js';
import { safeRedirect } from '../../src/renderer/app/safeRedirect.js';

describe('magic link fragment', () => {
  it('reads #token= and rewrites the current history entry without the fragment', () => {
    window.history.replaceState({ keep: 1 }, '', '/svc-monitoring/magic?x=1#token=abc%2Fdef');
    const token = takeMagicToken(window.location, window.history);
    expect(token).toBe('abc/def');
    expect(window.location.hash).toBe('');
    expect(window.location.href).not.toContain('token');
    expect(window.location.pathname + window.location.search).toBe('/svc-monitoring/magic?x=1');
    expect(window.history.state).toEqual({ keep: 1 });
  });
  it('no token → null (fragment still wiped)', () => {
    window.history.replaceState(null, '', '/svc-monitoring/magic#other=1');
    expect(takeMagicToken(window.location, window.history)).toBeNull();
    expect(window.location.hash).toBe('');
  });
  it('reads a single sign-on session from #session= (and never takes it for a magic token), wiping the fragment', () => {
    window.history.replaceState(null, '', '/svc-monitoring/magic#session=eyJ.abc.def');
    expect(takeSignInFragment(window.location, window.history)).toEqual({ kind: 'session', token: 'eyJ.abc.def' });
    expect(window.location.hash).toBe('');
    window.history.replaceState(null, '', '/svc-monitoring/magic#session=eyJ.abc.def');
    expect(takeMagicToken(window.location, window.history)).toBeNull();
  });
  it('words a single sign-on failure code from the address with fixed text only', () => {
    expect(singleSignOnFailure('not_allowed')).toMatch(/not allowed to sign in/);
    expect(singleSignOnFailure('issuer_unavailable')).toMatch(/cannot be reached/);
    expect(singleSignOnFailure('<script>alert(1)</script>')).toBe('Single sign-on failed. Please try again.');
    expect(singleSignOnFailure(undefined)).toBeNull();
  });
  it('redirects only to in-app paths after sign-in', () => {
    expect(safeRedirect('/tasks?statuses=Failed')).toBe('/tasks?statuses=Failed');
    expect(safeRedirect('//evil.example/')).toEqual({ name: 'overview' });
    expect(safeRedirect('https://evil.example/')).toEqual({ name: 'overview' });
    expect(safeRedirect('/login')).toEqual({ name: 'overview' });
  });
});
