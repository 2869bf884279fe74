// @backends sqlite — reads no stored data: HTTP, authentication, network and hub transport behaviour, the same over any store.
import { describe, expect, it } from 'vitest';
import { createMonitoring } from '../../../server/src/monitoring/createMonitoring.js';
import { createTempDatabase } from '../../fixtures/server/servedMonitoring.js';

describe('options are validated at startup, naming the option', () => {
  const quiet = { info: () => {}, warn: () => {} };
  it.each([
    [{ enableUI: 'yes' }, 'enableUI'],
    [{ jwtExpirationHours: -1 }, 'jwtExpirationHours'],
    [{ jwtExpirationHours: 0 }, 'jwtExpirationHours'],
    [{ eventDebounceMs: 1.5 }, 'eventDebounceMs'],
    [{ allowedIpAddresses: ['10.0.0.0/33'] }, 'allowedIpAddresses'],
    [{ allowedIpAddresses: ['not-an-ip'] }, 'allowedIpAddresses'],
    [{ allowedIpAddresses: '127.0.0.1' }, 'allowedIpAddresses'],
    [{ corsAllowedOrigins: ['ftp//x'] }, 'corsAllowedOrigins'],
    [{ loginRateLimit: { limit: 0, windowMs: 10 } }, 'loginRateLimit.limit'],
    [{ managementAuthorization: 'yes' }, 'managementAuthorization'],
    [{ username: '' }, 'username'],
    [{ usernme: 'typo' }, 'usernme'],
  ])('%j → error naming %s', (opts, name) => {
    const t = createTempDatabase();
    try {
      expect(() => createMonitoring({ storage: { db: t.db } }, { logger: quiet, ...(opts as object) })).toThrow(new RegExp(`"${name}"`));
    } finally {
      t.cleanup();
    }
  });

  it('enableSwagger is accepted, ignored, and warns once; a generated secret is logged as such', () => {
    const t = createTempDatabase();
    const warnings: string[] = [];
    const logger = { info: () => {}, warn: (m: string) => warnings.push(m) };
    try {
      const a = createMonitoring({ storage: { db: t.db } }, { logger, enableSwagger: true });
      const b = createMonitoring({ storage: { db: t.db } }, { logger, enableSwagger: true, jwtSecret: 'x'.repeat(40) });
      expect(warnings.filter((w) => w.includes('enableSwagger'))).toHaveLength(1);
      expect(warnings.filter((w) => /generated a random/.test(w))).toHaveLength(1);
      void a.close();
      void b.close();
    } finally {
      t.cleanup();
    }
  });

  it('a source without storage is refused', () => {
    expect(() => createMonitoring({ storage: {} as never })).toThrow(/"storage"/);
  });
});
