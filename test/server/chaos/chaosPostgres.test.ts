import { describe, it } from 'vitest';
import { expectShortRunHolds } from '../../chaos/shortRun.js';

// The short fault-injection run on PostgreSQL (test/chaos/README.md): three engine processes on one
// database, their connections terminated (pg_terminate_backend) and API actions mid-run, under a
// seeded schedule; every queue check must hold. The fault kinds left out here are listed, with the
// defect each finds, in test/chaos/shortRunFaults.ts. A failure names its seed; SVC_CHAOS_SEED replays it.
// (The server's own restart is not among the faults: the machine's PostgreSQL is shared.)
describe('fault injection, PostgreSQL: three engine processes on one database', () => {
  it('every task ends once, no run overlaps another or follows its cancel, every run is recorded or fenced, read models equal a rebuild', async () => {
    await expectShortRunHolds('postgres');
  }, 90_000);
});
