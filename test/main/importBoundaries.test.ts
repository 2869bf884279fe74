import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, specifiersOf, underDir, violations, type Rule } from '../fixtures/importGraph.js';

// The renderer reaches main only through the preload bridge, and both read the types that
// cross it from src/shared; src/shared stays free of main, Node, Electron and zod so that the
// renderer's DOM-only type-check and the sandboxed preload can read it.

const noMain: Rule = (target) => (underDir(target, 'src/main') ? 'src/main is reachable only through the preload bridge; import the type from src/shared' : undefined);

describe('import boundaries of the desktop console', () => {
  it('finds imports of every form, including in .vue files', () => {
    const vue = `<template><p/></template>\n<script setup lang="ts">\nimport type { A } from '../../main/a.js';\nconst b = await import('../main/b.js');\n</script>`;
    expect(specifiersOf('x.vue', vue)).toEqual(['../../main/a.js', '../main/b.js']);
    expect(specifiersOf('x.ts', `export type { C } from '../main/c.js';\nimport '../main/d.js';\nconst e = require('../main/e.js');`)).toEqual(['../main/c.js', '../main/d.js', '../main/e.js']);
    expect(noMain(join(ROOT, 'src/main/environmentStatus.ts'))).toMatch(/preload bridge/);
    expect(noMain(join(ROOT, 'src/mainly/x.ts'))).toBeUndefined();
  });

  it('the renderer imports nothing from src/main', async () => {
    expect(await violations('src/renderer', noMain)).toEqual([]);
  });

  it('the preload imports nothing from src/main', async () => {
    expect(await violations('src/preload', noMain)).toEqual([]);
  });

  it('src/shared imports only src/shared and the server contracts, and no package', async () => {
    const onlyNeutral: Rule = (target) =>
      underDir(target, 'src/shared') || underDir(target, 'server/src/contracts') ? undefined : 'src/shared may import only src/shared and server/src/contracts';
    expect(await violations('src/shared', onlyNeutral, () => 'src/shared imports no package (no Node, Electron or zod)')).toEqual([]);
  });
});
