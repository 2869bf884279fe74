#!/usr/bin/env node
// Prints the gzip size of every built web asset (server/web) and the total; exits 1 over the budget.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';

const dir = process.argv[2] ?? 'server/web';
const budgetKb = Number(process.env.WEB_GZIP_BUDGET_KB ?? 400);

function walk(d) {
  return readdirSync(d).flatMap((name) => {
    const p = join(d, name);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}

const rows = walk(dir)
  .filter((f) => /\.(js|mjs|css|html|svg|json|woff2?)$/.test(f))
  .map((f) => {
    const raw = readFileSync(f);
    return { file: relative(dir, f), raw: raw.length, gzip: gzipSync(raw, { level: 9 }).length };
  })
  .sort((a, b) => b.gzip - a.gzip);

const kb = (n) => (n / 1024).toFixed(1).padStart(8);
console.log(`${'asset'.padEnd(48)} ${'raw KB'.padStart(8)} ${'gzip KB'.padStart(8)}`);
for (const r of rows) console.log(`${r.file.padEnd(48)} ${kb(r.raw)} ${kb(r.gzip)}`);
const total = rows.reduce((s, r) => s + r.gzip, 0);
const totalRaw = rows.reduce((s, r) => s + r.raw, 0);
console.log(`${'TOTAL'.padEnd(48)} ${kb(totalRaw)} ${kb(total)}`);
console.log(JSON.stringify({ bench: 'web-size', assets: rows.length, gzipKb: Number((total / 1024).toFixed(1)), budgetKb }));
if (total / 1024 > budgetKb) {
  console.error(`web assets are ${(total / 1024).toFixed(1)} KB gzip, over the ${budgetKb} KB budget`);
  process.exit(1);
}
