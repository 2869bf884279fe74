import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../fixtures/importGraph.js';

// Each monitoring read is one module in storage/common/reads over the dialect: neither backend
// keeps a read of the same name of its own.
const STORAGE = join(ROOT, 'server/src/storage');
const modules = (dir: string) => readdirSync(join(STORAGE, dir)).filter((f) => f.endsWith('.ts'));

describe('monitoring reads written once', () => {
  it('no read module of storage/common/reads, storage/sqlite/monitoring or storage/postgres/monitoring shares its name with another', () => {
    const sqlite = modules('sqlite/monitoring');
    const postgres = modules('postgres/monitoring');
    const common = modules('common/reads');
    const twice = [...sqlite.filter((f) => postgres.includes(f)), ...[...sqlite, ...postgres].filter((f) => common.includes(f))];
    expect(twice).toEqual([]);
  });
});
