import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failureFingerprint } from '../../../server/src/storage/sqlite/functions/failureFingerprint.js';
import { openPostgresStorage } from '../../../server/src/storage/postgres/openPostgresStorage.js';
import type { PostgresStorage } from '../../../server/src/storage/postgres/PostgresStorage.js';
import { createTestDatabase, type TestDatabase } from '../../fixtures/server/postgresDatabase.js';

/** Failure groups are one group whichever backend (or instance) failed the run: same fingerprint in SQL and in TypeScript. */
describe('svc_failure_fingerprint in PostgreSQL equals failureFingerprint', () => {
  let database: TestDatabase;
  let storage: PostgresStorage;
  beforeAll(async () => {
    database = await createTestDatabase('svc_fp');
    storage = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 2 });
  });
  afterAll(async () => {
    await storage?.close();
    await database?.drop();
  });

  const sql = async (texts: (string | null)[]) =>
    (await storage.query<{ f: string }>(`SELECT svc_failure_fingerprint(t) AS f FROM unnest($1::text[]) WITH ORDINALITY AS x(t, i) ORDER BY i`, [texts])).rows.map((r) => r.f);

  it('on the documented examples', async () => {
    const examples = [
      'Error: customer "ACME-42" not found (id 3f2a9c1b-1111-2222-3333-444455556666)\n    at x (a.js:1:2)',
      'Error: timeout after 3000 ms',
      "KeyError: 'order-17'",
      null,
      '\n\n   \r\n  TimeoutError: the handler ran over 800 ms\n   at Demo.Run()',
      'Error: SMTP 421 from mail-7.example for invoice 1001',
      'Error: hash deadbeef01 and 0x1F and abc123 and cafe and 12.5.3:7 and `code 9`',
      'x'.repeat(300) + ' 42',
    ];
    expect(await sql(examples)).toEqual(examples.map(failureFingerprint));
  });

  it('on random error texts built from the parts it masks', async () => {
    const part = fc.oneof(
      fc.constantFrom('Error:', 'TypeError', ' ', '  ', '\n', '\r\n', '\t', '"', "'", '`', '\\', '-', '.', ',', ':', '_', '0x', 'id', 'at'),
      fc.stringMatching(/^[0-9a-fA-F]{1,12}$/),
      fc.integer({ min: 0, max: 1e9 }).map(String),
      fc.uuid(),
      fc.stringMatching(/^[A-Za-z]{1,8}$/),
    );
    const texts = fc.sample(fc.array(part, { minLength: 0, maxLength: 24 }).map((a) => a.join('')), 400);
    expect(await sql(texts)).toEqual(texts.map(failureFingerprint));
  });
});
