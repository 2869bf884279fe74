// npm run chaos -- [--minutes 10] [--backend sqlite|postgres] [--seed N] [--faults kill,pause,...]
// A long fault-injection run (test/chaos/README.md); prints the faults injected by kind, the tasks,
// the checks and every violation; exits 1 when there is one. A failing seed replays with --seed.
import { parseArgs } from 'node:util';
import { FAULT_KINDS, runChaos, type FaultKind } from './runChaos.js';

const { values } = parseArgs({
  options: { minutes: { type: 'string', default: '1' }, backend: { type: 'string' }, seed: { type: 'string' }, faults: { type: 'string' } },
});
const minutes = Number(values.minutes);
if (!(minutes > 0)) throw new Error(`--minutes: a positive number of minutes, not '${values.minutes}'`);
const backends = values.backend === undefined ? (['sqlite', 'postgres'] as const) : [values.backend];
for (const b of backends) if (b !== 'sqlite' && b !== 'postgres') throw new Error(`--backend: sqlite or postgres, not '${b}'`);
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
if (!Number.isInteger(seed)) throw new Error(`--seed: an integer, not '${values.seed}'`);
const faults = values.faults === undefined ? FAULT_KINDS : values.faults.split(',');
for (const f of faults) if (!(FAULT_KINDS as readonly string[]).includes(f)) throw new Error(`--faults: one of ${FAULT_KINDS.join(', ')}; not '${f}'`);

let failed = false;
for (const backend of backends as ('sqlite' | 'postgres')[]) {
  console.log(`chaos: ${backend}, seed ${seed}, ${minutes} min of faults`);
  const report = await runChaos({ backend, seed, durationMs: minutes * 60_000, faults: faults as FaultKind[], log: (l) => console.log(`  ${l}`) });
  console.log(`  faults injected: ${Object.entries(report.faults).map(([k, n]) => `${k} ${n}`).join(', ') || 'none'}`);
  console.log(`  tasks ${report.tasks}, handler runs ${report.handlerRuns}, elapsed ${(report.elapsedMs / 1000).toFixed(1)} s`);
  console.log(`  checks: ${Object.entries(report.checked).map(([k, n]) => `${k} ${n}`).join(', ')}`);
  console.log(`  notes: ${Object.entries(report.notes).map(([k, n]) => `${k} ${n}`).join(', ')}`);
  console.log(`  violations: ${report.violations.length}`);
  // By kind (ids, process names and figures left out), when there are more than the lines below show.
  if (report.violations.length > 50) {
    const kinds = new Map<string, number>();
    for (const v of report.violations) {
      const kind = v.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>').replace(/p\d+#\d+/g, '<proc>').replace(/\d+(\.\d+)?/g, 'N').slice(0, 90);
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    }
    for (const [kind, n] of kinds) console.log(`    ${n} × ${kind}`);
  }
  for (const v of report.violations.slice(0, 50)) console.log(`    ${v}`);
  if (report.violations.length > 50) console.log(`    … and ${report.violations.length - 50} more`);
  if (report.violations.length > 0) {
    failed = true;
    console.log(`  replay: npm run chaos -- --backend ${backend} --seed ${seed} --minutes ${minutes}${values.faults === undefined ? '' : ` --faults ${values.faults}`}`);
  }
}
process.exit(failed ? 1 : 0);
