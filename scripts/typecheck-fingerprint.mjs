#!/usr/bin/env node
// Prints a fingerprint of everything one typecheck reads: every file of its last program (the
// build-info file lists them, the packages' declaration files included), every TypeScript or
// Vue file under the folders its tsconfig includes (so a new file counts), the tsconfig itself,
// the lock file and the compiler's version. scripts/typecheck skips a project whose fingerprint
// equals the one saved after its last passing run: nothing it would read has changed since.
// (TypeScript's own build mode checks only the files a tsconfig names, not those they import,
// such as the server's sources in the renderer's program: a change there would go unchecked.)
// Usage: node scripts/typecheck-fingerprint.mjs <tsconfig> <build-info file>; prints "none"
// when there is no build-info file yet.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const [config, buildInfo] = process.argv.slice(2);
if (!config || !buildInfo) {
  console.error('usage: typecheck-fingerprint.mjs <tsconfig> <build-info file>');
  process.exit(2);
}
if (!existsSync(buildInfo)) {
  console.log('none');
  process.exit(0);
}

const files = new Set([resolve(config), resolve('package-lock.json'), resolve('node_modules/typescript/package.json'), resolve('node_modules/vue-tsc/package.json')]);
const info = JSON.parse(readFileSync(buildInfo, 'utf8'));
for (const name of info.fileNames ?? []) files.add(resolve(dirname(buildInfo), name));

const SOURCE = /\.(ts|mts|cts|tsx|vue)$/;
function walk(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
    const path = join(dir, e.name);
    if (e.isDirectory()) walk(path);
    else if (SOURCE.test(e.name)) files.add(path);
  }
}
const tsconfig = JSON.parse(readFileSync(config, 'utf8'));
for (const pattern of tsconfig.include ?? []) {
  // The folder part of the pattern: its segments before the first one with a wildcard.
  const parts = pattern.split('/');
  const wildcard = parts.findIndex((part) => part.includes('*'));
  const base = (wildcard < 0 ? parts : parts.slice(0, wildcard)).join('/');
  const path = resolve(dirname(config), base);
  if (existsSync(path) && statSync(path).isDirectory()) walk(path);
  else files.add(path);
}

const hash = createHash('sha256');
for (const file of [...files].sort()) {
  let stamp = 'missing';
  try {
    const s = statSync(file);
    stamp = `${s.mtimeMs} ${s.size}`;
  } catch {
    // a file of the last program that is gone: its absence is part of the fingerprint
  }
  hash.update(`${file} ${stamp}\n`);
}
console.log(hash.digest('hex'));
