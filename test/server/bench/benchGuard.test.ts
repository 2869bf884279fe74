import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { compareHistory } from '../../../bench/guard/compare.js';
import { showFigure, type HistoryLine } from '../../../bench/guard/history.js';
import { BENCHES, sittingOf } from '../../../bench/guard/benches.js';
import { END_MARKER, historyTable, START_MARKER } from '../../../bench/guard/readme.js';

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
    expect(text).toContain(`p99 / bare ws floor ≤ 1.5×: **${ratio * 1.3 <= 1.5 ? 'met' : 'missed'}**`);
    expect(text.endsWith(`${END_MARKER}\n\nafter\n`)).toBe(true);
  }, 120_000);

  it('refuses an unknown bench or option with exit status 2, naming it', async () => {
    const unknown = await run('all.ts', ['--only', 'engine,hubb', '--history', history]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--only: unknown bench "hubb"');
    expect(unknown.stderr).toContain('opt-in (run only when --only names them): api-sqlite-10m, api-postgres-10m');
    const option = await run('compare.ts', ['--histroy', history]);
    expect(option.code).toBe(2);
    expect(option.stderr).toMatch(/--histroy/);
  });
});

describe('targets and opt-in benches', () => {
  const full = (bench: string, result: Record<string, unknown>): HistoryLine => ({
    bench,
    at: '2026-11-27T15:00:00.000Z',
    commit: 'abc1234',
    label: null,
    quick: false,
    machine: { cpus: 2, cpuModel: 'x', loadBefore: [1.5, 1, 1], loadAfter: [1, 1, 1] },
    durationS: 1,
    result,
  });
  const rowOf = (table: string, bench: string) => table.split('\n').find((l) => l.startsWith(`| ${bench} `)) ?? '';

  it('a plain sitting leaves the opt-in benches out; --only runs them', () => {
    const plain = sittingOf().benches.map((b) => b.name);
    expect(plain).toContain('api-sqlite');
    expect(plain).not.toContain('api-sqlite-10m');
    expect(plain).not.toContain('api-postgres-10m');
    expect(plain).not.toContain('web-size');
    expect(plain).not.toContain('suite');
    expect(sittingOf(['api-postgres-10m', 'hub'])).toEqual({ benches: [BENCHES.find((b) => b.name === 'api-postgres-10m'), BENCHES.find((b) => b.name === 'hub')], unknown: [] });
    expect(sittingOf(['api-sqlite-11m']).unknown).toEqual(['api-sqlite-11m']);
    // The 10 M runs seed 10 M rows unless the parent names a kept database; --quick seeds 20,000.
    for (const name of ['api-sqlite-10m', 'api-postgres-10m']) {
      const entry = BENCHES.find((b) => b.name === name)!;
      expect(entry.env?.['BENCH_API_ROWS']).toBe('10000000');
      expect(entry.quickEnv['BENCH_API_ROWS']).toBe('20000');
    }
  });

  it('bench:compare --base takes the baseline line run closest in time to the change, before or after it', () => {
    const at = (hhmm: string) => `2026-11-27T${hhmm}:00.000Z`;
    const hub = (ratio: number) => ({ bench: 'hub', clients: 1000, p99Ms: 40, floorP99Ms: 25, ratio, lost: 0, rssMb: 120, p50Ms: 14 });
    const lines: HistoryLine[] = [
      { ...full('hub', hub(3)), at: at('10:00'), label: 'baseline' },
      { ...full('hub', hub(1.2)), at: at('15:00'), label: 'change' },
      // The same sitting's baseline, run just after the change.
      { ...full('hub', hub(1.1)), at: at('15:02'), label: 'baseline' },
    ];
    const [cmp] = compareHistory(lines, 'baseline', 'change');
    expect(cmp!.before!.at).toBe(at('15:02'));
    expect(cmp!.figures.find((f) => f.figure.key === 'ratio')).toMatchObject({ before: 1.1, now: 1.2 });
  });

  it("README's table holds each figure against its target, and lists a bench with no full run as not yet recorded", () => {
    const lines = [
      full('hub', { bench: 'hub', clients: 1000, p99Ms: 40, floorP99Ms: 25, ratio: 1.6, lost: 0, rssMb: 120, p50Ms: 14 }),
      // Older code measured beside it in the same sitting, recorded after it: never the row's line.
      { ...full('hub', { bench: 'hub', clients: 1000, p99Ms: 90, floorP99Ms: 25, ratio: 3.6, lost: 0, rssMb: 120, p50Ms: 30 }), label: 'baseline' },
      full('api-sqlite-10m', { bench: 'api', rows: 10_000_000, seedS: 950, tasksP99Ms: 11, countsP99Ms: 1, overviewAllP99Ms: 12, detailP99Ms: 1, requestSearchP99Ms: 26, metricsScrapeP99Ms: 3 }),
      // A kept database measured without seeding: no seeding figure to hold against its target.
      full('api-postgres-10m', { bench: 'api', rows: 10_000_000, seedS: null, tasksP99Ms: 27, countsP99Ms: 1, overviewAllP99Ms: 21, detailP99Ms: 3, requestSearchP99Ms: 65, metricsScrapeP99Ms: 3 }),
      { ...full('schedules', { bench: 'schedules', catchUpMs: 9_000, boundCountMs: 15 }), quick: true },
    ];
    const table = historyTable(lines);
    expect(table.split('\n')[0]).toBe('| Bench | What it runs | Figures (newest full run) | Target | Run |');

    const hub = rowOf(table, 'hub');
    expect(hub).toContain('p50 emit → receipt **14** ms');
    expect(hub).toContain('p99 / bare ws floor ≤ 1.5×: **missed**');
    expect(hub).toContain('server RSS < 300 MB: **met**');
    expect(hub).toContain('lost deliveries = 0: **met**');
    expect(hub).toMatch(/\| abc1234, 2026-11-27 15:00 UTC, load 1\.5 \|$/);
    expect(rowOf(table, 'hub-5000')).toContain('server RSS < 500 MB');

    const sqlite10m = rowOf(table, 'api-sqlite-10m (opt-in)');
    expect(sqlite10m).toContain('seeding **950** s');
    expect(sqlite10m).toContain('seeding < 900 s: **missed**');
    expect(sqlite10m).toContain('/tasks p99 (worst variant) < 25 ms: **met**');
    const pg10m = rowOf(table, 'api-postgres-10m (opt-in)');
    expect(pg10m).toContain('/tasks p99 (worst variant) < 25 ms: **missed**');
    expect(pg10m).toContain('requestSearch p99 < 50 ms: **missed**');
    expect(pg10m).toContain('seeding < 1,200 s: not measured');

    // Quick lines never count: schedules has none full, so its targets are listed without a verdict.
    const schedules = rowOf(table, 'schedules');
    expect(schedules).toContain('not yet recorded (`npm run bench:all -- --only schedules`)');
    expect(schedules).toContain('| catch-up of 1,000 schedules × 24 h < 15,000 ms; counting bound < 1,000 ms; task list p99 during the backlog < 50 ms; Pending filter p99 during the backlog < 50 ms; worst other read p99 during the backlog < 50 ms; event-loop delay max during the backlog reads < 50 ms | — |');
    expect(rowOf(table, 'web-size (opt-in)')).toContain('not yet recorded');
    expect(rowOf(table, 'web-size (opt-in)')).toContain('web assets, gzip < 400 KB');
    expect(rowOf(table, 'suite (opt-in)')).toContain('`npm test` wall time < 180 s');
  });
});
