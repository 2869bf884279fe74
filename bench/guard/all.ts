// `npm run bench:all [-- --quick] [--only engine,hub] [--label baseline] [--history file]`:
// runs every bench of bench/guard/benches.ts but the opt-in ones (those run only when `--only`
// names them) in one sitting, one after the other, each in its own process with its usual
// output, and appends one line per bench to the history file (default bench/history.jsonl): the
// bench's last JSON line (its figures and its peer's or floor's from the same run), the commit,
// the label, and the machine's load before and after. A bench that fails gets a line with
// `error` and the sitting goes on.
import { spawn, spawnSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { BENCHES, sittingOf, type BenchEntry } from './benches.js';
import { appendHistory, DEFAULT_HISTORY, type HistoryLine } from './history.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

function usage(message: string): never {
  console.error(`bench:all: ${message}`);
  console.error(`usage: npm run bench:all -- [--quick] [--only ${BENCHES.map((b) => b.name).join(',')}] [--label <name>] [--history <file>]`);
  console.error(`opt-in (run only when --only names them): ${BENCHES.filter((b) => b.optional).map((b) => b.name).join(', ')}`);
  process.exit(2);
}

function options(): { quick: boolean; only: BenchEntry[]; label: string | null; history: string } {
  let values;
  try {
    ({ values } = parseArgs({
      options: { quick: { type: 'boolean', default: false }, only: { type: 'string' }, label: { type: 'string' }, history: { type: 'string' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    usage((err as Error).message);
  }
  const names = values.only?.split(',').map((n) => n.trim()).filter((n) => n !== '');
  const { benches: only, unknown } = sittingOf(names);
  if (unknown.length > 0 || names?.length === 0) usage(`--only: unknown bench ${unknown.map((n) => `"${n}"`).join(', ') || '(none given)'}`);
  if (values.label !== undefined && !/^[\w.-]{1,40}$/.test(values.label)) usage('--label: 1 to 40 letters, digits, ".", "-" or "_"');
  return { quick: values.quick ?? false, only, label: values.label ?? null, history: values.history ?? DEFAULT_HISTORY };
}

function commit(): string {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO, encoding: 'utf8' });
  if (head.status !== 0) return 'unknown';
  const dirty = spawnSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: REPO, encoding: 'utf8' }).stdout.trim() !== '';
  return `${head.stdout.trim()}${dirty ? '+dirty' : ''}`;
}

const load = () => loadavg().map((x) => Math.round(x * 100) / 100);

/** Runs one bench with its output shown as usual; resolves with its last JSON line, or the reason it has none. */
function runBench(entry: BenchEntry, quick: boolean): Promise<{ result?: Record<string, unknown>; error?: string }> {
  const extra = (quick ? entry.quickArgs : undefined) ?? entry.args ?? [];
  const [command, args] =
    entry.script !== undefined
      ? [process.execPath, ['--import', 'tsx', fileURLToPath(new URL(`../${entry.script}`, import.meta.url)), ...extra]]
      : ['npm', ['run', '--silent', entry.npmScript, ...(extra.length > 0 ? ['--', ...extra] : [])]];
  const child = spawn(command, args, {
    cwd: REPO,
    env: { ...process.env, ...entry.env, ...(quick ? entry.quickEnv : {}) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let last: Record<string, unknown> | undefined;
  const tail: string[] = [];
  const keep = (line: string) => {
    tail.push(line);
    if (tail.length > 8) tail.shift();
  };
  createInterface({ input: child.stdout }).on('line', (line) => {
    console.log(`[${entry.name}] ${line}`);
    keep(line);
    if (!line.startsWith('{')) return;
    try {
      const parsed = JSON.parse(line) as unknown;
      if (typeof parsed === 'object' && parsed !== null && 'bench' in parsed) last = parsed as Record<string, unknown>;
    } catch {
      // a line starting with "{" that is not JSON: output, not the result
    }
  });
  createInterface({ input: child.stderr }).on('line', (line) => {
    console.error(`[${entry.name}] ${line}`);
    keep(line);
  });
  return new Promise((resolve) => {
    child.on('error', (err) => resolve({ error: err.message }));
    child.on('close', (code, signal) => {
      if (code === 0 && last !== undefined) resolve({ result: last });
      else resolve({ error: `${code === 0 ? 'no JSON result line' : `exit ${code ?? signal}`}: ${tail.join(' | ')}` });
    });
  });
}

const opts = options();
const sittingCommit = commit();
console.log(`bench:all ${opts.quick ? '(quick) ' : ''}at ${sittingCommit}${opts.label ? ` [${opts.label}]` : ''}: ${opts.only.map((b) => b.name).join(', ')} → ${opts.history}`);
let failed = 0;
for (const entry of opts.only) {
  const loadBefore = load();
  const started = performance.now();
  const { result, error } = await runBench(entry, opts.quick);
  const line: HistoryLine = {
    bench: entry.name,
    at: new Date().toISOString(),
    commit: sittingCommit,
    label: opts.label,
    quick: opts.quick,
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', loadBefore, loadAfter: load() },
    durationS: Math.round((performance.now() - started) / 100) / 10,
    ...(result ? { result } : { error }),
  };
  appendHistory(opts.history, line);
  if (error !== undefined) {
    failed++;
    console.error(`bench:all: ${entry.name} failed: ${error}`);
  } else console.log(`bench:all: ${entry.name} done in ${line.durationS} s`);
}
console.log(`bench:all: ${opts.only.length - failed} of ${opts.only.length} benches recorded in ${opts.history}; compare with npm run bench:compare`);
process.exitCode = failed > 0 ? 1 : 0;
