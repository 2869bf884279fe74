import type { ChaosReport } from './runChaos.js';

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
