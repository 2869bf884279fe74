import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { declaredBackends, filesNotOn } from '../fixtures/testBackends.js';

// vitest.config.ts leaves a file out of a store's projects when the file's own `// @backends` line
// does not name that store; these are the rules it reads them by.
describe('a test file names the stores it runs on', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-backends-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it('its @backends line, with or without a reason; no line: every store of its folder', () => {
    expect(declaredBackends(file('a.test.ts', `// @backends sqlite deferred — SQLite itself.\nimport 'x';\n`))).toEqual(['sqlite', 'deferred']);
    expect(declaredBackends(file('b.test.ts', `// @backends sqlite\n`))).toEqual(['sqlite']);
    expect(declaredBackends(file('c.test.ts', `import 'x';\nconst s = '// @backends sqlite';\n`))).toBeUndefined();
  });

  it('refuses a store it does not know, naming the file and the store', () => {
    const path = file('d.test.ts', `// @backends sqlite mysql — typo.\n`);
    expect(() => declaredBackends(path)).toThrow(`${path}: unknown backend 'mysql' in its @backends line (known: sqlite, deferred, postgres)`);
  });

  it('the suites: the SQLite-only files leave the PostgreSQL projects, the others stay', () => {
    const notOnPostgres = filesNotOn('postgres', ['test/server/engine', 'test/server/schedules']);
    expect(notOnPostgres).toContain('test/server/engine/storeTrouble.test.ts');
    expect(notOnPostgres).toContain('test/server/schedules/haltBoundary.test.ts');
    expect(notOnPostgres).not.toContain('test/server/engine/badInput.test.ts');
    expect(filesNotOn('deferred', ['test/server/engine'])).toEqual(['test/server/engine/badInput.test.ts', 'test/server/engine/boundaries.test.ts', 'test/server/engine/claimedRowsForgotten.test.ts']);
    // Two monitoring instances share one store, and a server terminates a connection, only on PostgreSQL.
    expect(filesNotOn('sqlite', ['test/server'])).toEqual(['test/server/monitoring/clusterGauges.test.ts', 'test/server/monitoring/managementLostConnection.test.ts']);
  });
});
