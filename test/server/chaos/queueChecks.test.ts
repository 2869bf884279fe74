import { describe, expect, it } from 'vitest';
import { checkHistory } from '../../chaos/checks.js';
import type { FinalRow, History, LifeRecord } from '../../chaos/history.js';
import type { LogLine } from '../../chaos/protocol.js';

// The checks of the fault-injection harness over small histories written by hand: a sound one
// passes, and each kind of wrong history is named (so that a run without violations means something).

const S = 1_000_000; // µs
const life = (proc: string, over: Partial<LifeRecord> = {}): LifeRecord => ({
  proc, startedAt: 0, exitedAt: 100 * S, killed: false, pauses: [], clockOffsetMs: 0, ...over,
});
const row = (id: string, over: Partial<FinalRow> = {}): FinalRow => ({
  id, type: 'Chaos.Work', status: 'Completed', abandoned_count: 0, parent_task_id: null, is_schedule: false, ...over,
});
const line = (k: LogLine['k'], proc: string, t: number, over: Partial<LogLine> = {}): LogLine => ({ k, proc, t, ...over });
/** One run of `task` in `proc` from `from` to `to` s, recorded (its Completed event follows). */
const run = (task: string, proc: string, from: number, to: number, attempt = 1): LogLine[] => [
  line('begin', proc, from * S, { task, attempt }),
  line('end', proc, to * S, { task, attempt, outcome: 'Completed' }),
  line('event', proc, to * S + 1000, { task, kind: 'Completed' }),
];
const history = (over: Partial<History>): History => ({
  lines: [], lives: new Map([['p1#1', life('p1#1')], ['p2#1', life('p2#1')]]), cancels: [], rerun: new Set(), rows: [], leaseMs: 1000, faults: [], ...over,
});

describe('the queue checks of the fault-injection harness', () => {
  it('a sound history passes: dispatched, run once, recorded, Completed', () => {
    const result = checkHistory(history({ lines: [line('dispatched', 'p1#1', 0, { task: 'a' }), ...run('a', 'p1#1', 1, 2)], rows: [row('a')] }));
    expect(result.violations).toEqual([]);
    expect(result.checked).toMatchObject({ terminal: 1, exactlyOneEnd: 1, abandoned: 1 });
  });

  it('a row left Queued, InProgress or ServiceStopped, and a dispatched task with no row, are violations', () => {
    const result = checkHistory(history({
      lines: [line('dispatched', 'p1#1', 0, { task: 'gone' })],
      rows: [row('q', { status: 'Queued' }), row('r', { status: 'InProgress' }), row('s', { status: 'ServiceStopped' })],
    }));
    expect(result.violations).toEqual([
      'dispatched task gone (by p1#1) has no row',
      'task q (Chaos.Work) ends the run Queued', 'task r (Chaos.Work) ends the run InProgress', 'task s (Chaos.Work) ends the run ServiceStopped',
    ]);
  });

  it('two ends of one task, or an end its row does not hold, are violations', () => {
    const result = checkHistory(history({ lines: [...run('a', 'p1#1', 1, 2), ...run('a', 'p2#1', 3, 4, 2)], rows: [row('a', { status: 'Failed' })] }));
    expect(result.violations).toEqual([
      'task a ended more than once: Completed in p1#1, Completed in p2#1',
      'task a ended Completed in p1#1, Completed in p2#1 but its row says Failed',
    ]);
  });

  it('runs of one task overlapping in two processes are a violation, unless the first process sat paused past its lease', () => {
    const overlapping = [...run('a', 'p1#1', 1, 3), line('begin', 'p2#1', 2 * S, { task: 'a', attempt: 2 }), line('end', 'p2#1', 2.5 * S, { task: 'a', outcome: 'Completed' }), line('health', 'p2#1', 2.6 * S, { stale: 1 })]; // its late end fenced
    const plain = checkHistory(history({ lines: overlapping, rows: [row('a')] }));
    expect(plain.violations).toEqual([expect.stringMatching(/^task a: run in p2#1 began at 2000\.0 ms while its run in p1#1 \(began 1000\.0 ms\) still ran until 3000\.0 ms/)]);
    const paused = checkHistory(history({ lines: overlapping, rows: [row('a')], lives: new Map([['p1#1', life('p1#1', { pauses: [[1.1 * S, 2.9 * S]] })], ['p2#1', life('p2#1')]]) }));
    expect(paused.violations).toEqual([]);
    expect(paused.notes.overlapsAfterLostLease).toBe(1);
  });

  it('a run whose process was killed lasts until the SIGKILL: a takeover after it is sound, before it is not', () => {
    const lives = new Map([['p1#1', life('p1#1', { killed: true, killedAt: 2 * S, exitedAt: 2.4 * S })], ['p2#1', life('p2#1')]]);
    const died = [line('begin', 'p1#1', 1 * S, { task: 'a', attempt: 1 })];
    expect(checkHistory(history({ lines: [...died, ...run('a', 'p2#1', 2.1, 3, 2)], rows: [row('a', { abandoned_count: 1 })], lives })).violations).toEqual([]);
    expect(checkHistory(history({ lines: [...died, ...run('a', 'p2#1', 1.5, 3, 2)], rows: [row('a', { abandoned_count: 1 })], lives })).violations).toHaveLength(1);
  });

  it('a handler that begins after its cancel committed is a violation', () => {
    const lines = [line('event', 'p1#1', 1 * S, { task: 'a', kind: 'Cancelled' }), line('begin', 'p2#1', 2 * S, { task: 'a', attempt: 1 })];
    expect(checkHistory(history({ lines, rows: [row('a', { status: 'Cancelled' })] })).violations).toEqual([
      'task a: a handler began in p2#1 at 2000.0 ms, after its cancel committed at 1000.0 ms (Cancelled event in p1#1)',
    ]);
    const bySchedule = checkHistory(history({
      lines: [line('begin', 'p1#1', 3 * S, { task: 'o', attempt: 1 })],
      rows: [row('s', { is_schedule: true, status: 'Cancelled' }), row('o', { parent_task_id: 's', status: 'Cancelled' })],
      cancels: [{ via: 'schedule', target: 's', at: 2 * S }],
    }));
    expect(bySchedule.violations).toEqual(['task o: a handler began in p1#1 at 3000.0 ms, after its cancel committed at 2000.0 ms (schedule cancel answered)']);
  });

  it('a run that ended unrecorded must be counted fenced (staleRunWrites) by its process', () => {
    const lines = [line('begin', 'p1#1', 1 * S, { task: 'a', attempt: 1 }), line('end', 'p1#1', 2 * S, { task: 'a', outcome: 'Completed' }), ...run('a', 'p2#1', 2.5, 3, 2)];
    const unfenced = checkHistory(history({ lines, rows: [row('a')] }));
    expect(unfenced.violations).toContain('p1#1: 1 handler runs ended without their end recorded, but only 0 writes were fenced (staleRunWrites)');
    const fenced = checkHistory(history({ lines: [...lines, line('health', 'p1#1', 5 * S, { stale: 1 })], rows: [row('a')] }));
    expect(fenced.violations.filter((v) => v.includes('fenced'))).toEqual([]);
    expect(fenced.notes.runsFenced).toBe(1);
  });

  it('abandoned counts: a run that died with its process must be counted; none may be counted when nothing died, stopped or lost its lease', () => {
    const lives = new Map([['p1#1', life('p1#1', { killed: true, killedAt: 2 * S, exitedAt: 2 * S })], ['p2#1', life('p2#1')]]);
    const lines = [line('begin', 'p1#1', 1 * S, { task: 'a', attempt: 1 }), ...run('a', 'p2#1', 3, 4, 2)];
    expect(checkHistory(history({ lines, lives, rows: [row('a', { abandoned_count: 0 })] })).violations).toEqual([
      'task a: 1 runs died with their process but its row counts 0 abandoned',
    ]);
    expect(checkHistory(history({ lines: run('b', 'p1#1', 1, 2), rows: [row('b', { abandoned_count: 1 })] })).violations).toEqual([
      'task b: counts 1 abandoned runs although no process died, stopped or lost its lease',
    ]);
  });
});
