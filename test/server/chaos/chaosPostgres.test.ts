import { describe, it } from 'vitest';
import { expectShortRunHolds } from '../../chaos/shortRun.js';

// The short fault-injection run on PostgreSQL (test/chaos/README.md): three engine processes on one
// database, killed, paused past their lease, stopped with handlers that ignore their abort, on
// host clocks off by up to ±5 s, their connections terminated (pg_terminate_backend), and API
// actions mid-run, under a seeded schedule (the kinds: test/chaos/shortRunFaults.ts); every queue
// check must hold. A failure names its seed; SVC_CHAOS_SEED replays it.
// (The server's own restart is not among the faults: the machine's PostgreSQL is shared.)
describe('fault injection, PostgreSQL: three engine processes on one database', () => {
  it('every task ends once, no run overlaps another or follows its cancel, every run is recorded or fenced, read models equal a rebuild', async () => {
    await expectShortRunHolds('postgres');
  }, 90_000);
});
