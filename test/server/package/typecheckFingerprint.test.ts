import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../../../scripts/typecheck-fingerprint.mjs', import.meta.url));

/**
 * `npm test` skips a typecheck whose fingerprint equals the one of its last pass; a change the
 * fingerprint misses would let a type error through. A miniature project: the renderer's
 * tsconfig includes its own folder and imports a contract from outside it (as the real one
 * imports the server's sources).
 */
describe('the typecheck fingerprint', () => {
  const root = mkdtempSync(join(tmpdir(), 'svc-fingerprint-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const file = (path: string, text: string) => {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  file('package-lock.json', '{}');
  file('app/tsconfig.json', JSON.stringify({ include: ['./**/*.ts'] }));
  file('app/page.ts', "import type { Task } from '../contracts/task.js';\nexport const t: Task = { id: 'x' };\n");
  file('contracts/task.ts', 'export interface Task { id: string }\n');
  // What the compiler's build-info file lists: the files of the last program, relative to it.
  file('cache/app.tsbuildinfo', JSON.stringify({ fileNames: ['../app/page.ts', '../contracts/task.ts'] }));

  const fingerprint = (info = 'cache/app.tsbuildinfo') => {
    const r = spawnSync(process.execPath, [SCRIPT, 'app/tsconfig.json', info], { cwd: root, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    return r.stdout.trim();
  };
  const touch = (path: string, secondsAhead: number) => {
    const at = new Date(Date.now() + secondsAhead * 1000);
    utimesSync(join(root, path), at, at);
  };

  it('stays the same while nothing changes, and is "none" before a first build-info file exists', () => {
    const first = fingerprint();
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(fingerprint()).toBe(first);
    expect(fingerprint('cache/missing.tsbuildinfo')).toBe('none');
  });

  it('changes with a file the project only imports (outside its include), not just with its own', () => {
    const before = fingerprint();
    touch('contracts/task.ts', 60);
    const afterImported = fingerprint();
    expect(afterImported).not.toBe(before);
    touch('app/page.ts', 120);
    expect(fingerprint()).not.toBe(afterImported);
  });

  it('changes when a new source file appears under an included folder, or a listed one is deleted', () => {
    const before = fingerprint();
    file('app/nested/added.ts', 'export const broken: number = "x";\n');
    const withNew = fingerprint();
    expect(withNew).not.toBe(before);
    rmSync(join(root, 'contracts/task.ts'));
    expect(fingerprint()).not.toBe(withNew);
  });

  it('changes with the tsconfig and with the lock file (other dependencies, other declarations)', () => {
    const before = fingerprint();
    touch('app/tsconfig.json', 180);
    const afterConfig = fingerprint();
    expect(afterConfig).not.toBe(before);
    file('package-lock.json', '{"lockfileVersion":3}');
    expect(fingerprint()).not.toBe(afterConfig);
  });
});
