// @backends sqlite — reads the docs folder only
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DECISIONS = join(ROOT, 'docs/decisions');
const SCRIPT = join(ROOT, 'scripts/decisions-index.mjs');

function check(cwdScript: string): { ok: boolean; stderr: string } {
  try {
    execFileSync(process.execPath, [cwdScript, '--check'], { stdio: 'pipe', encoding: 'utf8' });
    return { ok: true, stderr: '' };
  } catch (error) {
    return { ok: false, stderr: String((error as { stderr?: string }).stderr ?? error) };
  }
}

describe('decision records (docs/decisions)', () => {
  it('the index lists every record, and is the one the records give', () => {
    expect(check(SCRIPT)).toEqual({ ok: true, stderr: '' });
    const index = readFileSync(join(DECISIONS, 'README.md'), 'utf8');
    const records = readdirSync(DECISIONS).filter((file) => file.endsWith('.md') && file !== 'README.md');
    expect(records.length).toBeGreaterThan(300);
    for (const file of records) expect(index).toContain(`](${file})`);
  });

  it('a new record, or a record without its status line, makes the check fail', () => {
    // A copy of the script and the records in a scratch tree, so the real ones are never touched.
    const scratch = mkdtempSync(join(tmpdir(), 'decisions-'));
    cpSync(join(ROOT, 'scripts'), join(scratch, 'scripts'), { recursive: true, filter: (src) => !src.includes('node_modules') });
    cpSync(DECISIONS, join(scratch, 'docs/decisions'), { recursive: true });
    const script = join(scratch, 'scripts/decisions-index.mjs');
    expect(check(script).ok).toBe(true);
    writeFileSync(join(scratch, 'docs/decisions/a-new-rule.md'), '# A new rule\n\nStatus: accepted · Date: 2026-11-28 · Replaces: —\n\nText.\n');
    expect(check(script)).toMatchObject({ ok: false, stderr: expect.stringContaining('stale') });
    execFileSync(process.execPath, [script], { stdio: 'pipe' });
    expect(check(script).ok).toBe(true);
    expect(readFileSync(join(scratch, 'docs/decisions/README.md'), 'utf8')).toContain('[A new rule](a-new-rule.md) | 2026-11-28 | accepted | — |');
    writeFileSync(join(scratch, 'docs/decisions/broken.md'), '# Broken\n\nno status line\n');
    expect(check(script)).toMatchObject({ ok: false, stderr: expect.stringContaining('broken.md: the third line') });
  });
});
