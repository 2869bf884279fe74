import { describe, it } from 'vitest';
import { expectShortRunHolds } from '../../chaos/shortRun.js';

// The short fault-injection run on SQLite (test/chaos/README.md): one engine process, killed,
// paused, stopped and restarted under a seeded schedule, with clocks off by up to ±5 s and API
// actions mid-run; every queue check must hold. A failure names its seed; SVC_CHAOS_SEED replays it.
describe('fault injection, SQLite: one engine process restarted after kill -9', () => {
  it('every task ends once, no run overlaps another or follows its cancel, every run is recorded or fenced, read models equal a rebuild', async () => {
    await expectShortRunHolds('sqlite');
  }, 90_000);
});
