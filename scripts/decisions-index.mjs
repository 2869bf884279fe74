#!/usr/bin/env node
// Writes docs/decisions/README.md, the index of the decision records, from the records themselves:
// each record is one file `docs/decisions/<slug>.md` whose first line is `# Title` and whose third
// line (or second) is `Status: … · Date: YYYY-MM-DD · Topic: … · Replaces: …` (Topic and Replaces optional).
// `--check` writes nothing and exits 1 when the index is not the one the records give (a test runs it).
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const DIR = fileURLToPath(new URL('../docs/decisions/', import.meta.url));
const INDEX = 'README.md';
const FIELDS = /^Status: .+$/;

/** The header of one record, or an error naming the file and what is wrong. */
export function readRecord(file, text) {
  const lines = text.split('\n');
  if (!lines[0]?.startsWith('# ')) throw new Error(`${file}: the first line must be '# Title'`);
  const statusLine = [lines[1], lines[2]].find((line) => FIELDS.test(line ?? ''));
  if (!statusLine) throw new Error(`${file}: the third line must be 'Status: … · Date: YYYY-MM-DD · …'`);
  const fields = Object.fromEntries(statusLine.split(' · ').map((part) => {
    const at = part.indexOf(': ');
    return [part.slice(0, at).trim().toLowerCase(), part.slice(at + 2).trim()];
  }));
  if (!/^\d{4}-\d{2}-\d{2}$/.test(fields.date ?? '')) throw new Error(`${file}: Date must be YYYY-MM-DD`);
  return { file, title: lines[0].slice(2).trim(), status: fields.status, date: fields.date,
    topic: fields.topic ?? 'Other', replaces: fields.replaces ?? '—' };
}

export function buildIndex(dir = DIR) {
  const records = readdirSync(dir).filter((f) => f.endsWith('.md') && f !== INDEX).sort()
    .map((f) => readRecord(f, readFileSync(join(dir, f), 'utf8')));
  const topics = new Map();
  for (const r of records) topics.set(r.topic, [...(topics.get(r.topic) ?? []), r]);
  // Topics in the order of their first decision's date, then by name; records by date, then title.
  const ordered = [...topics.entries()].map(([topic, rs]) => [topic, rs.sort((a, b) => a.date.localeCompare(b.date) || a.title.localeCompare(b.title))])
    .sort(([a, ra], [b, rb]) => ra[0].date.localeCompare(rb[0].date) || a.localeCompare(b));
  const cell = (s) => s.replace(/\|/g, '\\|');
  const out = [
    '# Decisions',
    '',
    'Where the service specification and the design notes are both silent, these records say what we',
    'built and why: one decision per file, named after its rule, so a reader finds the rule behind a',
    'line of code by name (`ls docs/decisions | grep lease`). Each record starts with its title and a',
    'line `Status: … · Date: … · Topic: … · Replaces: …`. The task status transitions are in',
    '[architecture.md](../architecture.md#task-states).',
    '',
    'This index is generated: `node scripts/decisions-index.mjs` (a test fails when it is stale).',
    `${records.length} records in ${ordered.length} topics.`,
    '',
  ];
  for (const [topic, rs] of ordered) {
    out.push(`## ${topic}`, '', '| Decision | Date | Status | Replaces |', '|---|---|---|---|');
    for (const r of rs) out.push(`| [${cell(r.title)}](${r.file}) | ${r.date} | ${cell(r.status)} | ${cell(r.replaces)} |`);
    out.push('');
  }
  return out.join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const want = buildIndex();
  const path = join(DIR, INDEX);
  if (process.argv.includes('--check')) {
    let have = '';
    try { have = readFileSync(path, 'utf8'); } catch { /* missing: stale */ }
    if (have !== want) { console.error('docs/decisions/README.md is stale: run node scripts/decisions-index.mjs'); process.exit(1); }
  } else {
    writeFileSync(path, want);
  }
}
