import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../../server/src/index.js';
import { openStorage, type OpenStorageOptions, type StorageParts } from '../../../server/src/storage/openStorage.js';
import { createTestDatabase, type TestDatabase } from '../../fixtures/server/postgresDatabase.js';
import { waitFor } from '../../fixtures/waitFor.js';

// openStorage answers, for either backend, what the engine, the monitoring and the command line
// need of one store; each part is used here as its user uses it.

const dir = mkdtempSync(join(tmpdir(), 'svc-open-storage-'));
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase('storage_tree_open');
});
afterAll(async () => {
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

const backends: [string, () => OpenStorageOptions, 'sqlite' | 'postgres'][] = [
  ['SQLite', () => ({ backend: 'sqlite', file: join(dir, 'tasks.db') }), 'sqlite'],
  ['PostgreSQL', () => ({ backend: 'postgres', connectionString: database.connectionString, poolSize: 3 }), 'postgres'],
];

describe.each(backends)('openStorage on %s', (_name, options, backend) => {
  it('its engine store runs a task, its monitoring store reads it, its operator audit and demo seed work on the same store', async () => {
    const parts: StorageParts = await openStorage(options());
    try {
      expect(parts.backend).toBe(backend);
      const store = parts.engineStore();
      const engine = createEngine({ store, pollIntervalMs: 50, onError: () => undefined });
      engine.handle('Tree.Job', async () => undefined);
      await engine.start();
      const id = await engine.dispatch('Tree.Job', { n: 1 }, { taskKey: 'tree-job' });
      const monitoring = parts.monitoringStore();
      await waitFor(async () => (await monitoring.getTask(id))?.status === 'Completed' || undefined, 15_000, 'the task to complete');
      await engine.stop();
      await store.dispose();

      expect(await monitoring.counts()).toMatchObject({ all: 1, failed: 0 });
      const audit = parts.operatorAudit();
      expect(audit?.writable).toBe(true);
      const seed = parts.demoSeed();
      expect(await seed.hasSchedule('tree-job')).toBe(false);
      await seed.backdate(id, 1_000, 2_000);
      expect(await monitoring.getTask(id)).toMatchObject({ status: 'Completed', scheduledExecutionUtc: new Date(2_000).toISOString() });
    } finally {
      await parts.close();
    }
  });

  it(`schedule operations outside an engine: ${backend === 'postgres' ? 'any process performs them' : 'none (only the engine writes the file)'}`, async () => {
    const parts = await openStorage(options());
    try {
      const operations = parts.scheduleOperations();
      if (backend === 'sqlite') expect(operations).toBeUndefined();
      else expect(await operations!.cancel('no-such-schedule')).toMatchObject({ status: 'NotFound' });
    } finally {
      await parts.close();
    }
  });
});
