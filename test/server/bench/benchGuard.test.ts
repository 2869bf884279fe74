import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { showFigure, type HistoryLine } from '../../../bench/guard/history.js';
import { END_MARKER, START_MARKER } from '../../../bench/guard/readme.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));

function run(script: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(REPO, 'bench/guard', script), ...args], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const lines = (file: string): HistoryLine[] => readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as HistoryLine);

describe('the bench regression guard: bench:all → history → bench:compare → bench:readme', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-guard-'));
  const history = join(dir, 'history.jsonl');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('records a quick hub run, marks a planted 30 % regression, and writes the README block', async () => {
    const all = await run('all.ts', ['--quick', '--only', 'hub', '--label', 'before', '--history', history]);
    expect(all.code, all.stderr + all.stdout).toBe(0);
    expect(all.stdout).toContain('[hub] {"bench":"hub"');
    const [recorded] = lines(history);
    expect(recorded).toMatchObject({ bench: 'hub', label: 'before', quick: true, machine: { cpus: expect.any(Number) } });
    expect(recorded!.commit).toMatch(/^[0-9a-f]{7,}(\+dirty)?$/);
    expect(recorded!.machine.loadBefore).toHaveLength(3);
    expect(Object.keys(recorded!.result!)).toEqual(['bench', 'clients', 'p99Ms', 'floorP99Ms', 'ratio', 'lost', 'rssMb', 'p50Ms']);
    expect(recorded!.result).toMatchObject({ bench: 'hub', clients: 40, lost: 0 });
    const ratio = recorded!.result!['ratio'] as number;
    expect(ratio).toBeGreaterThan(0);

    // The same run again, but with the hub's ratio to its floor 30 % worse and its RSS 10 % worse.
    const planted: HistoryLine = { ...recorded!, label: 'after', result: { ...recorded!.result, ratio: ratio * 1.3, rssMb: (recorded!.result!['rssMb'] as number) * 1.1 } };
    appendFileSync(history, `${JSON.stringify(planted)}\n`);
    const compare = await run('compare.ts', ['--history', history]);
    expect(compare.code).toBe(1);
    const row = (label: string) => compare.stdout.split('\n').find((l) => l.startsWith('hub') && l.includes(label)) ?? '';
    expect(row('p99 / bare ws floor')).toMatch(/worse 30\.0 %\s+WORSE$/);
    expect(row('server RSS')).toMatch(/worse 10\.0 %$/);
    expect(row('lost deliveries')).not.toMatch(/FAIL/);

    // Against the line labelled "after" itself there is no earlier line: nothing to mark.
    const same = await run('compare.ts', ['--history', history, '--base', 'after']);
    expect(same.code).toBe(0);
    expect(same.stdout).not.toMatch(/WORSE/);

    // The README block shows the newest full run only (quick runs never).
    const readme = join(dir, 'README.md');
    writeFileSync(readme, `# x\n\n${START_MARKER}\nold\n${END_MARKER}\n\nafter\n`);
    appendFileSync(history, `${JSON.stringify({ ...planted, quick: false, label: null })}\n`);
    const written = await run('readme.ts', ['--history', history, '--readme', readme]);
    expect(written.code, written.stderr).toBe(0);
    const text = readFileSync(readme, 'utf8');
    expect(text).not.toContain('\nold\n');
    // Printed as the block prints it (a ratio like 1.495 must not be rounded here one way and there another).
    expect(text).toContain(`p99 / bare ws floor **${showFigure(ratio * 1.3)}**×`);
    expect(text.endsWith(`${END_MARKER}\n\nafter\n`)).toBe(true);
  }, 120_000);

  it('refuses an unknown bench or option with exit status 2, naming it', async () => {
    const unknown = await run('all.ts', ['--only', 'engine,hubb', '--history', history]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--only: unknown bench "hubb"');
    const option = await run('compare.ts', ['--histroy', history]);
    expect(option.code).toBe(2);
    expect(option.stderr).toMatch(/--histroy/);
  });
});
