import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The renderer reaches main only through the preload bridge, and both read the types that
// cross it from src/shared; src/shared stays free of main, Node, Electron and zod so that the
// renderer's DOM-only type-check and the sandboxed preload can read it.

const ROOT = resolve(import.meta.dirname, '../..');

async function sourceFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await sourceFiles(path)));
    else if (/\.(ts|mts|vue)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** Every module a file names: static imports and re-exports (type-only ones too), dynamic imports, require. */
function specifiersOf(path: string, text: string): string[] {
  const code = path.endsWith('.vue') ? [...text.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]).join('\n') : text;
  return ts.preProcessFile(code, true, true).importedFiles.map((f) => f.fileName);
}

/** What a file may not import, as a sentence, or undefined when the import is fine. */
type Rule = (target: string) => string | undefined;

function underDir(target: string, dir: string): boolean {
  const rel = relative(join(ROOT, dir), target);
  return rel !== '' && !rel.startsWith('..') && !rel.startsWith(sep) && !/^[A-Za-z]:/.test(rel);
}

async function violations(dir: string, rule: Rule, bareRule?: (specifier: string) => string | undefined): Promise<string[]> {
  const found: string[] = [];
  for (const file of await sourceFiles(join(ROOT, dir))) {
    for (const specifier of specifiersOf(file, await readFile(file, 'utf8'))) {
      const why = specifier.startsWith('.') ? rule(resolve(dirname(file), specifier)) : bareRule?.(specifier);
      if (why) found.push(`${relative(ROOT, file)} imports "${specifier}": ${why}`);
    }
  }
  return found;
}

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
