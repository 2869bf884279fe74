import { expect } from 'vitest';
import { runChaos, type ChaosReport } from './runChaos.js';
import { SHORT_RUN_FAULTS } from './shortRunFaults.js';

/** The seed of a short run: SVC_CHAOS_SEED when given (a replay), else a fresh one. */
export function chaosSeed(): number {
  const given = process.env.SVC_CHAOS_SEED;
  if (given === undefined || given === '') return Math.floor(Math.random() * 2 ** 31);
  const seed = Number(given);
  if (!Number.isInteger(seed)) throw new Error(`SVC_CHAOS_SEED: an integer, not '${given}'`);
  return seed;
}

/** What a failed short run prints: its seed, how to replay it, and what it injected. */
export function replayHint(report: ChaosReport): string {
  return `chaos ${report.backend} seed ${report.seed} failed (faults ${JSON.stringify(report.faults)}); replay: ` +
    `SVC_CHAOS_SEED=${report.seed} npx vitest run --project server test/server/chaos, or npm run chaos -- --backend ${report.backend} --seed ${report.seed}`;
}

/**
 * The short run of `npm test` on one backend: 12 s of its short-run faults, then every queue check
 * must hold, and the run must have done what it claims (faults, tasks and runs to check).
 */
export async function expectShortRunHolds(backend: 'sqlite' | 'postgres'): Promise<void> {
  const report = await runChaos({ backend, seed: chaosSeed(), durationMs: 12_000, faults: SHORT_RUN_FAULTS[backend] });
  expect(report.violations, replayHint(report)).toEqual([]);
  expect(Object.values(report.faults).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
  expect(report.tasks).toBeGreaterThan(20);
  expect(report.handlerRuns).toBeGreaterThan(20);
  expect(report.checked.readModels).toBe(1);
}
