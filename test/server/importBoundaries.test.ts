import { describe, expect, it } from 'vitest';
import { ROOT, underDir, violations, type Rule } from '../fixtures/importGraph.js';

// The layers of the server package, lowest first: the contracts are the shared vocabulary and
// import no other folder; time/ (zone offsets and wall times) is shared by the engine and
// storage and imports no other folder; storage sits under the engine and knows nothing of the monitoring, the
// hub or the command line; the engine knows no HTTP (the monitoring and the hub read through
// storage and listen to engine events).

function refusing(reason: string, ...dirs: string[]): Rule {
  return (target) => (dirs.some((dir) => underDir(target, `server/src/${dir}`)) ? reason : undefined);
}

describe('import boundaries of the server package', () => {
  it('a rule names the folder it refuses, and only that folder', () => {
    const rule = refusing('no', 'monitoring');
    expect(rule(`${ROOT}/server/src/monitoring/options.ts`)).toBe('no');
    expect(rule(`${ROOT}/server/src/monitoringx/a.ts`)).toBeUndefined();
  });

  it('storage imports nothing from the monitoring, the hub or the command line', async () => {
    const rule = refusing('storage is read by the monitoring and the hub, never the reverse; move the shared type to contracts or storage', 'monitoring', 'hub', 'cli');
    expect(await violations('server/src/storage', rule)).toEqual([]);
  });

  it('storage imports nothing from the engine (what both need lives in contracts or time)', async () => {
    const rule = refusing('storage sits under the engine; move what both need to contracts (types) or time (zone arithmetic)', 'engine');
    expect(await violations('server/src/storage', rule)).toEqual([]);
  });

  it("storage's common folder is dialect-free: it imports neither backend nor a driver", async () => {
    const rule = refusing('common/ holds what both backends share; a backend-specific helper belongs in sqlite/ or postgres/', 'storage/sqlite', 'storage/postgres');
    const drivers = (specifier: string) => (specifier === 'better-sqlite3' || specifier === 'pg' || specifier.startsWith('pg-') ? 'common/ names no database driver' : undefined);
    expect(await violations('server/src/storage/common', rule, drivers)).toEqual([]);
  });

  it('each backend folder imports nothing of the other backend', async () => {
    expect(await violations('server/src/storage/sqlite', refusing('SQLite code shares with PostgreSQL only through common/', 'storage/postgres'))).toEqual([]);
    expect(await violations('server/src/storage/postgres', refusing('PostgreSQL code shares with SQLite only through common/', 'storage/sqlite'))).toEqual([]);
  });

  it('the engine imports nothing from the monitoring, the hub or the command line', async () => {
    const rule = refusing('the engine knows no HTTP; the monitoring and the hub listen to its events', 'monitoring', 'hub', 'cli');
    expect(await violations('server/src/engine', rule)).toEqual([]);
  });

  it('the contracts import only the contracts', async () => {
    const rule = refusing('the contracts are the shared vocabulary and import no other folder', 'engine', 'storage', 'monitoring', 'hub', 'cli', 'options', 'time');
    expect(await violations('server/src/contracts', rule)).toEqual([]);
  });

  it('the time folder imports no other folder of the package', async () => {
    const rule = refusing('time/ is read by the engine and storage alike and depends on neither', 'contracts', 'engine', 'storage', 'monitoring', 'hub', 'cli', 'options');
    expect(await violations('server/src/time', rule)).toEqual([]);
  });
});
