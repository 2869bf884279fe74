/**
 * Where a test run's CPU goes: runs `npm test` (arguments after `--` go to it, e.g.
 * `npm run bench:suite -- --project server`), samples every process of the machine from /proc
 * meanwhile, and prints the CPU time of the run per kind of process: vitest's runner and workers,
 * Chromium (by process type), PostgreSQL's backends, the typecheck's compilers, the server CLI
 * and the tests' child scripts, bundlers, npm. The baseline is the machine's own busy time over
 * the same span (/proc/stat): what no process above accounts for is printed as unattributed
 * (processes that ended between two samples lose at most one interval each; kernel threads).
 *
 * Only the machine's speed of the hour compares: run the variants being compared one after the
 * other in the same sitting. Linux only (/proc). Last line: one JSON object.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const INTERVAL_MS = 250;
const TICKS_PER_SECOND = 100; // USER_HZ on Linux

if (process.platform !== 'linux') {
  console.error('bench:suite reads /proc and runs on Linux only.');
  process.exit(2);
}

interface Sample {
  ticks: number;
  group: string;
}

/** The kind of a process, from its name and command line (read once, when first seen). */
function classify(comm: string, argv: string[]): string {
  const line = argv.join(' ');
  if (/chrom/i.test(comm) || /(^|\/)chromium?(\s|$)/.test(argv[0] ?? '')) {
    const type = /--type=(\S+)/.exec(line)?.[1] ?? 'browser';
    return `chromium ${type}`;
  }
  if (comm.startsWith('postgres') || comm === 'postmaster') return 'postgresql';
  if (comm === 'esbuild') return 'bundlers (vite, electron-vite, esbuild)';
  if (comm.startsWith('gnome-keyring') || comm.startsWith('dbus')) return 'keyring (gnome-keyring, dbus)';
  const isNode = /(^|\/)node$/.test(argv[0] ?? '') || comm === 'node' || comm === 'MainThread';
  if (!isNode) return `other: ${comm}`;
  if (/vue-tsc|typescript\/bin\/tsc|\/\.bin\/tsc|(^|\s)tsc(\s|$)/.test(line)) return 'typescript compilers (typecheck, package builds)';
  if (/vitest/.test(line)) return 'vitest (runner and workers)';
  if (/svc-test-scripts/.test(line)) return "tests' child scripts (bundles)";
  if (/dist\/cli\.js|svc-monitor-server|src\/cli\.ts/.test(line)) return 'server CLI processes (serve, demo)';
  if (/electron-vite|vite|esbuild/.test(line)) return 'bundlers (vite, electron-vite, esbuild)';
  if (/npm(-cli)?\.js|(^|\/)npm(\s|$)|npx/.test(line)) return 'npm';
  return 'other node processes';
}

function readProcesses(known: Map<string, Sample>): Map<string, number> {
  const seen = new Map<string, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    const close = stat.lastIndexOf(')');
    const fields = stat.slice(close + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    const key = `${entry}:${fields[19]}`; // pid and start time: a reused pid is another process
    seen.set(key, ticks);
    if (!known.has(key)) {
      let argv: string[] = [];
      try {
        argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean);
      } catch {
        // ended meanwhile: classified by name only
      }
      known.set(key, { ticks: -1, group: classify(stat.slice(stat.indexOf('(') + 1, close), argv) });
    }
  }
  return seen;
}

/** Busy jiffies of the whole machine (all CPUs): everything but idle and iowait. */
function machineBusy(): number {
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = cpu;
  return user + nice + system + irq + softirq + steal;
}

const known = new Map<string, Sample>();
const perGroup = new Map<string, number>();
const self = String(process.pid);

function sample(first: boolean): void {
  const seen = readProcesses(known);
  for (const [key, ticks] of seen) {
    const entry = known.get(key)!;
    // Processes already running when the bench started count from then on; new ones from birth.
    const before = entry.ticks >= 0 ? entry.ticks : first ? ticks : 0;
    if (!key.startsWith(`${self}:`)) perGroup.set(entry.group, (perGroup.get(entry.group) ?? 0) + ticks - before);
    entry.ticks = ticks;
  }
}

const args = process.argv.slice(2);
sample(true);
const busyAtStart = machineBusy();
const started = performance.now();
const timer = setInterval(() => sample(false), INTERVAL_MS);
const child = spawn('npm', ['test', ...(args.length > 0 ? ['--', ...args] : [])], { stdio: ['ignore', 'pipe', 'pipe'] });
// The run's whole output goes to a file (its path is printed), its last lines are read for the summary.
const logPath = join(mkdtempSync(join(tmpdir(), 'svc-bench-suite-')), 'npm-test.log');
const log = createWriteStream(logPath);
let tail = '';
const keep = (d: Buffer) => {
  log.write(d);
  tail = (tail + d.toString()).slice(-4000);
};
child.stdout.on('data', keep);
child.stderr.on('data', keep);
const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
clearInterval(timer);
sample(false);
const wallS = (performance.now() - started) / 1000;
const busyS = (machineBusy() - busyAtStart) / TICKS_PER_SECOND;
const benchS = (process.cpuUsage().user + process.cpuUsage().system) / 1e6;

const summary = tail.match(/tests: \d+ passed, \d+ failed, \d+ skipped/)?.[0] ?? '(no summary line)';
const rows = [...perGroup].map(([group, ticks]) => ({ group, cpuS: ticks / TICKS_PER_SECOND })).filter((r) => r.cpuS >= 0.05).sort((a, b) => b.cpuS - a.cpuS);
const attributed = rows.reduce((s, r) => s + r.cpuS, 0);
const pct = (x: number) => `${((100 * x) / busyS).toFixed(1)}%`.padStart(7);

await new Promise<void>((resolve) => log.end(resolve));
console.log(`npm test ${args.join(' ')}: exit ${code}, ${summary} (output: ${logPath})`);
console.log(`wall ${wallS.toFixed(1)} s; machine busy ${busyS.toFixed(1)} CPU-s (${(busyS / wallS).toFixed(2)} of ${readdirSync('/sys/devices/system/cpu').filter((d) => /^cpu\d+$/.test(d)).length} cores)`);
console.log(`${'kind of process'.padEnd(52)} ${'CPU-s'.padStart(8)} ${'share'.padStart(7)}`);
for (const r of rows.slice(0, 25)) console.log(`${r.group.slice(0, 52).padEnd(52)} ${r.cpuS.toFixed(1).padStart(8)} ${pct(r.cpuS)}`);
const rest = rows.slice(25).reduce((s, r) => s + r.cpuS, 0);
if (rest > 0) console.log(`${'(the other kinds)'.padEnd(52)} ${rest.toFixed(1).padStart(8)} ${pct(rest)}`);
const unattributed = busyS - attributed - benchS;
console.log(`${'unattributed (ended between samples, kernel)'.padEnd(52)} ${unattributed.toFixed(1).padStart(8)} ${pct(unattributed)}`);
console.log(`${`this bench (sampling every ${INTERVAL_MS} ms)`.padEnd(52)} ${benchS.toFixed(1).padStart(8)} ${pct(benchS)}`);
console.log(
  JSON.stringify({
    bench: 'suite-cpu',
    exit: code,
    wallS: Number(wallS.toFixed(1)),
    machineBusyS: Number(busyS.toFixed(1)),
    groups: Object.fromEntries(rows.map((r) => [r.group, Number(r.cpuS.toFixed(1))])),
    unattributedS: Number(unattributed.toFixed(1)),
    benchS: Number(benchS.toFixed(1)),
  }),
);
process.exit(code === 0 ? 0 : 1);
