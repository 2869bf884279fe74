import { describe, expect, it } from 'vitest';
import { runChaos } from '../../chaos/runChaos.js';
import { SHORT_RUN_FAULTS } from '../../chaos/shortRunFaults.js';
import { chaosSeed, replayHint } from '../../chaos/shortRun.js';

// The short fault-injection run on PostgreSQL (test/chaos/README.md): three engine processes on one
// database, their connections terminated (pg_terminate_backend) and API actions mid-run, under a
// seeded schedule; every queue check must hold. The fault kinds left out here are listed, with the
// defect each finds, in test/chaos/shortRunFaults.ts. A failure names its seed; SVC_CHAOS_SEED replays it.
// (The server's own restart is not among the faults: the machine's PostgreSQL is shared.)
describe('fault injection, PostgreSQL: three engine processes on one database', () => {
  it('every task ends once, no run overlaps another or follows its cancel, every run is recorded or fenced, read models equal a rebuild', async () => {
    const seed = chaosSeed();
    const report = await runChaos({ backend: 'postgres', seed, durationMs: 12_000, faults: SHORT_RUN_FAULTS.postgres });
    expect(report.violations, replayHint(report)).toEqual([]);
    // The run did what it claims: faults, tasks and runs to check.
    expect(Object.values(report.faults).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    expect(report.tasks).toBeGreaterThan(20);
    expect(report.handlerRuns).toBeGreaterThan(20);
    expect(report.checked.readModels).toBe(1);
  }, 90_000);
});
