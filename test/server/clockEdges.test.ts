import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The files whose expectations involve calendar time (a day, an hour, a minute), run again in
// a separate vitest process whose every process sees a wall clock shifted to an awkward
// instant: a UTC midnight two seconds away, and second 59 of a minute. They must pass as they
// do at any other time (an injected clock, or an expectation computed from the clock read).

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const PRELOAD = fileURLToPath(new URL('../fixtures/shiftedClock.mjs', import.meta.url));

const TIME_SENSITIVE = [
  'test/server/cli/serveEngine.test.ts',
  'test/server/schedules/withEngine.test.ts',
  'test/server/hub/occurrenceSkippedFromSchedule.test.ts',
];

const DAY = 86_400_000;
const MINUTE = 60_000;

function runShifted(startAt: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', '--project', 'server', ...TIME_SENSITIVE], {
      cwd: REPO,
      env: {
        ...process.env,
        SVC_TEST_CLOCK_START_AT: String(startAt),
        NODE_OPTIONS: `${process.env['NODE_OPTIONS'] ?? ''} --import ${PRELOAD}`.trim(),
        FORCE_COLOR: '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

describe('time-sensitive tests at awkward wall-clock instants', () => {
  it('pass when started at 23:59:58 UTC (a midnight falls during the run) and at second 59 of a minute', async () => {
    const now = Date.now();
    const beforeMidnight = Math.floor(now / DAY) * DAY + DAY - 2_000;
    const secondFiftyNine = Math.floor(now / MINUTE) * MINUTE + 59_000 + 7 * MINUTE;
    const starts = [beforeMidnight, secondFiftyNine];
    const runs = await Promise.all(starts.map(runShifted));
    runs.forEach((run, i) => {
      const shown = new Date(starts[i]!).toISOString();
      expect(run.output, `run started at ${shown}`).toMatch(/tests: \d+ passed, 0 failed, 0 skipped/);
      expect(run.code, `run started at ${shown}:\n${run.output}`).toBe(0);
      // the preload really shifted the clock (the vitest process prints the instant it saw)
      expect(run.output).toContain(`clock shifted to ${shown.slice(0, 17)}`);
    });
  }, 240_000);
});
