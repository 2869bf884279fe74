// The backlog reads of bench:schedules (bench/backlogReads.ts) by two versions of the code at once,
// read by read, over one backlog (seeded by `bench/backlogReadsAlone.ts seed`):
//   tsx bench/backlogReadsInterleaved.ts <base root> <branch root> postgres <database> | sqlite <file>
// Each version is loaded from its own checkout (a git worktree) with its own store and connection;
// every read runs BENCH_READ_ROUNDS (15) times a version, base and branch one after the other (the
// order swapped every round), so the machine's load falls on both alike: on a shared machine a
// p99 of a few samples is the load's, and the medians per read are the figures to compare. Both
// versions' answers are compared first (`differ` names the reads whose answers were not equal).
// Prints JSON: medians and p99 per read, the sum of every sample, this process's CPU per version.
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import type { MonitoringStore } from '../server/src/storage/MonitoringStore.js';
import { backlogReadVariants } from './backlogReads.js';

const [baseRoot, branchRoot, backend, target] = process.argv.slice(2);
if (!baseRoot || !branchRoot || (backend !== 'sqlite' && backend !== 'postgres') || !target) {
  throw new Error('usage: tsx bench/backlogReadsInterleaved.ts <base root> <branch root> postgres <database> | sqlite <file>');
}
const ROUNDS = Number(process.env.BENCH_READ_ROUNDS ?? 15);
const PG_ADMIN = process.env.BENCH_PG ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** The dashboard's clock: the end of the seeded catch-up (bench/backlogReadsAlone.ts). */
const NOW = Date.parse('2026-02-02T10:00:30Z') + 86_400_000;

const closers: (() => unknown)[] = [];
async function storeOf(root: string): Promise<MonitoringStore> {
  const src = (path: string) => import(resolve(root, 'server/src/storage', path));
  const { createMonitoringStore } = await src('common/reads/createMonitoringStore.ts');
  if (backend === 'postgres') {
    const { openPostgresStorage } = await src('postgres/openPostgresStorage.ts');
    const { postgresReadDb } = await src('postgres/monitoring/postgresReadDb.ts');
    const url = new URL(PG_ADMIN);
    url.pathname = `/${target}`;
    const storage = await openPostgresStorage({ connectionString: url.toString(), rollupIntervalMs: 0 });
    closers.push(() => storage.close());
    return createMonitoringStore(postgresReadDb(storage));
  }
  const { openSqliteStorage } = await src('sqlite/openSqliteStorage.ts');
  const { sqliteReadDb } = await src('sqlite/monitoring/sqliteReadDb.ts');
  const storage = openSqliteStorage({ file: target! });
  closers.push(() => storage.close());
  return createMonitoringStore(sqliteReadDb(storage.db));
}

const VERSIONS = ['base', 'branch'] as const;
type Version = (typeof VERSIONS)[number];
const reads = {
  base: await backlogReadVariants(await storeOf(baseRoot), NOW),
  branch: await backlogReadVariants(await storeOf(branchRoot), NOW),
};
const names = [...reads.branch.keys()];
const differ: string[] = [];
for (const name of names) {
  if (JSON.stringify(await reads.base.get(name)!()) !== JSON.stringify(await reads.branch.get(name)!())) differ.push(name);
}
const samples: Record<Version, Map<string, number[]>> = { base: new Map(names.map((n) => [n, []])), branch: new Map(names.map((n) => [n, []])) };
const cpuMs: Record<Version, number> = { base: 0, branch: 0 };
const loadBefore = loadavg()[0]!;
const nextMacrotask = () => new Promise<void>((r) => setImmediate(r));
for (let round = 0; round < ROUNDS; round++) {
  for (const name of names) {
    for (const v of round % 2 === 0 ? VERSIONS : [...VERSIONS].reverse()) {
      await nextMacrotask();
      const cpu = process.cpuUsage();
      const t = performance.now();
      await reads[v].get(name)!();
      samples[v].get(name)!.push(performance.now() - t);
      const used = process.cpuUsage(cpu);
      cpuMs[v] += (used.user + used.system) / 1000;
    }
  }
}
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * q) - 1)]!;
const round1 = (ms: number) => Math.round(ms * 10) / 10;
const figures = (v: Version, name: string) => ({ median: round1(quantile(samples[v].get(name)!, 0.5)), p99: round1(quantile(samples[v].get(name)!, 0.99)) });
console.log(JSON.stringify({
  backend,
  rounds: ROUNDS,
  load: [round1(loadBefore), round1(loadavg()[0]!)],
  differ,
  sumMs: Object.fromEntries(VERSIONS.map((v) => [v, round1([...samples[v].values()].flat().reduce((a, b) => a + b, 0))])),
  cpuMs: Object.fromEntries(VERSIONS.map((v) => [v, round1(cpuMs[v])])),
  byRead: Object.fromEntries(names.map((n) => [n, { base: figures('base', n), branch: figures('branch', n) }])),
}));
for (const close of closers) await close();
