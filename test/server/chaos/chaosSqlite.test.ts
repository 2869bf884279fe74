import { describe, expect, it } from 'vitest';
import { runChaos } from '../../chaos/runChaos.js';
import { SHORT_RUN_FAULTS } from '../../chaos/shortRunFaults.js';
import { chaosSeed, replayHint } from '../../chaos/shortRun.js';

// The short fault-injection run on SQLite (test/chaos/README.md): one engine process, killed,
// paused, stopped and restarted under a seeded schedule, with clocks off by up to ±5 s and API
// actions mid-run; every queue check must hold. A failure names its seed; SVC_CHAOS_SEED replays it.
describe('fault injection, SQLite: one engine process restarted after kill -9', () => {
  it('every task ends once, no run overlaps another or follows its cancel, every run is recorded or fenced, read models equal a rebuild', async () => {
    const seed = chaosSeed();
    const report = await runChaos({ backend: 'sqlite', seed, durationMs: 12_000, faults: SHORT_RUN_FAULTS.sqlite });
    expect(report.violations, replayHint(report)).toEqual([]);
    // The run did what it claims: faults, tasks and runs to check.
    expect(Object.values(report.faults).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    expect(report.tasks).toBeGreaterThan(20);
    expect(report.handlerRuns).toBeGreaterThan(20);
    expect(report.checked.readModels).toBe(1);
  }, 90_000);
});
