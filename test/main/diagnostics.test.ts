import { describe, expect, it } from 'vitest';
import { aboutText, describeUpdate, diagnosticsReport, type DiagnosticsFacts } from '../../src/main/support/diagnostics.js';
import type { EnvironmentStatusView } from '../../src/shared/environmentStatus.js';

const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJvcHMifQ.c2lnbmF0dXJlLXNlY3JldA';
const PASSWORD = 'hunter2-Secret!';

function env(name: string, extra: Partial<EnvironmentStatusView>): EnvironmentStatusView {
  return {
    id: name.toLowerCase(),
    name,
    baseUrl: `https://${name.toLowerCase()}.example.com`,
    colour: '#2563eb',
    isProduction: false,
    session: { environmentId: name.toLowerCase(), auth: 'authenticated', canManage: true, managementEnabled: true, requireAuthentication: true, hasRememberedPassword: true, username: 'ops' },
    hub: { state: 'connected' },
    live: 'connected',
    ...extra,
  } as EnvironmentStatusView;
}

const facts: DiagnosticsFacts = {
  appVersion: '1.4.0',
  packaged: true,
  versions: { electron: '39.2.0', chrome: '142.0.7444.59', node: '22.20.0' },
  os: { platform: 'linux', release: '6.8.0', arch: 'x64' },
  environments: [
    env('Production', { isProduction: true }),
    env('Staging', {
      live: 'error',
      hub: { state: 'error', message: `negotiate failed: GET https://ops:${PASSWORD}@staging.example.com/svc-monitoring/hub?access_token=${TOKEN}` },
      statusMessage: `Cannot reach https://ops:${PASSWORD}@staging.example.com (Authorization: Bearer ${TOKEN})`,
      notWatching: 'the live connection is down',
    }),
  ],
  vault: { storage: 'keychain', migrated: 0 },
  lastErrors: [`2026-11-27T07:00:00.000Z ERROR login failed {"password":"${PASSWORD}","token":"${TOKEN}"}`, `2026-11-27T07:01:00.000Z ERROR proxy at http://proxyuser:${PASSWORD}@proxy.corp:3128 refused`],
  logFolder: '/home/ops/.config/Svc Monitor/logs',
  crashDumps: '/home/ops/.config/Svc Monitor/Crashpad',
};

describe('About and Copy diagnostics', () => {
  it('the report lists versions, OS, each environment with its live state, where secrets are kept, logs, crash dumps and the last errors', () => {
    const report = diagnosticsReport(facts);
    expect(report).toContain('Svc Monitor 1.4.0\nElectron 39.2.0 · Chromium 142.0.7444.59 · Node 22.20.0\nlinux 6.8.0 (x64)\nUpdates: unavailable in this build');
    expect(report).toContain('## Environments (2)');
    expect(report).toContain('- Production <https://production.example.com>: production; live: connected; session: authenticated; hub: connected');
    expect(report).toMatch(/- Staging <https:\/\/staging\.example\.com>: non-production; live: error; session: authenticated; hub: error; status: Cannot reach https:\/\/staging\.example\.com .*; not watching: the live connection is down/);
    expect(report).toContain('Secrets kept in: keychain');
    expect(report).toContain('Crash dumps (local only, never uploaded): /home/ops/.config/Svc Monitor/Crashpad');
    // A dump is a copy of memory: the report says it may hold secrets before support asks for it.
    expect(report).toMatch(/Crash dumps may contain tokens and passwords/);
    expect(report).toContain('## Last errors (2)');
  });

  it('never contains a token, a password or a URL\'s credentials, wherever they were', () => {
    const report = diagnosticsReport(facts);
    for (const secret of [TOKEN, PASSWORD, 'proxyuser', 'ops:']) expect(report).not.toContain(secret);
    expect(report).toContain('http://proxy.corp:3128');
  });

  it('the About text and the update line follow the updater\'s state, or say it is unavailable', () => {
    expect(aboutText({ ...facts, packaged: false })).toMatch(/^Svc Monitor 1\.4\.0 \(development\)\n/);
    expect(describeUpdate(undefined)).toBe('Updates: unavailable in this build');
    expect(describeUpdate({ state: 'downloading', currentVersion: '1.4.0', availableVersion: '1.5.0', progressPercent: 42.4 })).toBe('Updates: downloading 1.5.0 (42 %)');
    expect(describeUpdate({ state: 'error', currentVersion: '1.4.0', message: 'sha512 checksum mismatch', checkedAtUtc: '2026-11-27T07:00:00.000Z' })).toBe('Updates: the last check failed — sha512 checksum mismatch, checked 2026-11-27T07:00:00.000Z');
  });
});
