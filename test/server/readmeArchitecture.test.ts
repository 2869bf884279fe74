import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../fixtures/importGraph.js';

// README's architecture block is read by newcomers first: it names every top-level folder of the
// server package and of the desktop app, the mirrored storage sub-folders, and the main process's
// services. This test keeps it true to the tree, both ways: what the block names exists, and
// every folder it should name is named.
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const section = readme.slice(readme.indexOf('## Architecture'), readme.indexOf('\n## ', readme.indexOf('## Architecture') + 1));
const block = section.slice(section.indexOf('```'), section.lastIndexOf('```'));
const folders = (dir: string) => readdirSync(join(ROOT, dir), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);

describe("README's architecture block matches the tree", () => {
  it('has a block to check', () => {
    expect(block.length).toBeGreaterThan(200);
  });

  it('every path it names exists', () => {
    const paths = [...block.matchAll(/\b((?:server\/)?src\/[\w/]+)/g)].map((m) => m[1]!.replace(/\/$/, ''));
    expect(paths.length).toBeGreaterThan(5);
    expect(paths.filter((p) => !existsSync(join(ROOT, p)))).toEqual([]);
  });

  it('names every folder of server/src and of src', () => {
    const unnamed = [
      ...folders('server/src').map((f) => `server/src/${f}`),
      ...folders('src').map((f) => `src/${f}`),
    ].filter((p) => !new RegExp(`${p.replace(/\//g, '\\/')}\\b`).test(block));
    expect(unnamed).toEqual([]);
  });

  it('the storage sub-folders it lists exist in both backends, and both backends have them', () => {
    const listed = [...block.matchAll(/\b(tasks|schedules|management|readModels)\//g)].map((m) => m[1]!);
    expect(new Set(listed)).toEqual(new Set(['tasks', 'schedules', 'management', 'readModels']));
    for (const backend of ['sqlite', 'postgres']) {
      expect(listed.filter((f) => !folders(`server/src/storage/${backend}`).includes(f))).toEqual([]);
    }
  });

  it("every service it names in src/main is a file of that name", () => {
    const mainLine = block.slice(block.indexOf('src/main'), block.indexOf('(plain services'));
    const names = [...mainLine.matchAll(/\b([A-Z][A-Za-z]+)\b/g)].map((m) => m[1]!);
    expect(names.length).toBeGreaterThanOrEqual(6);
    const files = new Set<string>();
    const walk = (dir: string) => {
      for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
        if (e.isDirectory()) walk(`${dir}/${e.name}`);
        else files.add(e.name.replace(/\.ts$/, ''));
      }
    };
    walk('src/main');
    expect(names.filter((n) => !files.has(n))).toEqual([]);
  });
});
