import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { CommitBatch, CommitOutcome, NewExecutionLog, NewTask, RunnableTaskRow } from '../../../server/src/storage/EngineStore.js';
import { openStoreUnderTest, type StoreUnderTest } from '../../fixtures/server/storeUnderTest.js';
import { readModelsAndRebuild } from '../../fixtures/server/readModelsAndRebuild.js';
import { startsOf, tokenOf } from '../../fixtures/server/runTokens.js';

// The run-token check on every write that ends, fails or stops a run, and on the start of a
// reserved row, on the store under test: a write naming a run that no longer holds its row (the
// row recovered and started again elsewhere, or its reservation taken over) changes nothing of the
// row, its audits or its runs, and is reported not written. Each write goes alone, and beside a
// log line of the run (on PostgreSQL a commit with other writes takes the general transaction, not
// the one-statement fast commit, and has its own copy of each check).

const TYPE = 'Stale.Write';
let sut: StoreUnderTest;
let now = Date.now();
const tick = () => (now += 10);
afterAll(async () => {
  await sut?.destroy();
});

const batch = (part: Partial<CommitBatch> = {}): CommitBatch => ({
  now: tick(), logs: [], insertTasks: [], cancels: [], attemptFailures: [], completeRuns: [], serviceStopped: [], capacities: new Map(), dispatching: null, ...part,
});
const claim = { promoteLimit: 10, claims: [{ queue: 'default', limit: 1 }], types: [TYPE], decide: null, reservationMs: 60_000 };

function newTask(recurring: boolean): NewTask {
  const at = now;
  return {
    id: randomUUID(), type: TYPE, handler: `${TYPE}Handler`, request: '{}', queue: 'default', taskKey: null, auditLevel: 'Full', createdAt: at,
    scheduledAt: recurring ? at : null, dueAt: recurring ? at : 0, retryPolicy: null, timeoutMs: null, rateLimitKey: null, isRecurring: recurring,
    recurrence: recurring ? JSON.stringify({ every: 60_000 }) : null,
  };
}

/** A fresh task claimed (reserved) by the store under test. */
async function claimed(recurring = false): Promise<RunnableTaskRow> {
  const t = newTask(recurring);
  await sut.store.commit(batch({ insertTasks: [t] }));
  const out = await sut.store.commit(batch({ dispatching: claim }));
  expect(out.claimed.map((r) => r.id)).toEqual([t.id]);
  return out.claimed[0]!;
}

/** A fresh task whose run (token tokenOf(id)) started here and was then recovered and started again by another run. */
async function takenOverRun(recurring = false): Promise<string> {
  const row = await claimed(recurring);
  expect((await sut.store.commit(batch({ startRuns: startsOf([row], tick()) }))).started).toEqual([true]);
  await sut.probe.run(`UPDATE tasks SET run_token = 'the-live-run' WHERE id = ?`, row.id);
  return row.id;
}

const logOf = (id: string): NewExecutionLog => ({ taskId: id, timestamp: now, level: 'Information', message: 'a line of the stale run', exceptionDetails: null, sequenceNumber: 1 });

/** What a stale write must leave as it was. */
async function rowState(id: string) {
  const row = (await sut.probe.task(id))!;
  const keep = ['status', 'run_token', 'run_count', 'attempt', 'exception', 'last_execution_at', 'execution_time_ms', 'last_outcome', 'scheduled_at', 'started_at', 'reserved_by', 'reserved_at'];
  return { row: Object.fromEntries(keep.map((k) => [k, row[k]])), audits: await sut.probe.audits(id), runs: await sut.probe.runs(id) };
}

type Company = 'alone' | 'beside a log line';
const COMPANIES: Company[] = ['alone', 'beside a log line'];

interface StaleCase {
  name: string;
  recurring?: boolean;
  part(id: string, token: string): Partial<CommitBatch>;
  written(out: CommitOutcome): boolean[];
}

const end = (outcome: 'Completed' | 'Failed' | 'Cancelled', nextStatus: 'Completed' | 'Failed' | 'Cancelled' | 'Pending') => (id: string, token: string): Partial<CommitBatch> => ({
  completeRuns: [{
    id, token, auditLevel: 'Full', endedAt: now, executionTimeMs: 4, outcome, exception: outcome === 'Failed' ? 'Error: stale' : null, nextStatus,
    nextScheduledAt: nextStatus === 'Pending' ? now + 60_000 : null, recurring: nextStatus === 'Pending',
  }],
});

const CASES: StaleCase[] = [
  { name: 'the end of a completed run', part: end('Completed', 'Completed'), written: (o) => o.finished },
  { name: 'the end of a failed run', part: end('Failed', 'Failed'), written: (o) => o.finished },
  { name: 'the end of a cancelled run', part: end('Cancelled', 'Cancelled'), written: (o) => o.finished },
  { name: 'the end of an inline recurring run (Pending again)', recurring: true, part: end('Completed', 'Pending'), written: (o) => o.finished },
  { name: 'a failed attempt (a retry follows)', part: (id, token) => ({ attemptFailures: [{ id, token, attempt: 1, exception: 'Error: stale attempt' }] }), written: (o) => o.attemptsRecorded },
  { name: 'the stop of a run (ServiceStopped)', part: (id, token) => ({ serviceStopped: [{ id, token, auditLevel: 'Full' }] }), written: (o) => o.stopped },
];

describe('stale run writes are refused on every path', () => {
  it('opens the store under test', () => {
    sut = openStoreUnderTest();
  });

  for (const c of CASES) {
    for (const company of COMPANIES) {
      it(`${c.name}, ${company}: not written, the row, its audits and runs unchanged`, async () => {
        const id = await takenOverRun(c.recurring === true);
        const before = await rowState(id);
        const out = await sut.store.commit(batch({ ...c.part(id, tokenOf(id)), ...(company === 'beside a log line' ? { logs: [logOf(id)] } : {}) }));
        expect(c.written(out)).toEqual([false]);
        expect(await rowState(id)).toEqual(before);
        // The live run's own write of the same kind still lands.
        const live = await sut.store.commit(batch(c.part(id, 'the-live-run')));
        expect(c.written(live)).toEqual([true]);
      });
    }
  }

  for (const company of COMPANIES) {
    it(`a start, and a start with its end in the same commit, of a reservation taken over, ${company}: neither written, the row still the other's`, async () => {
      for (const withEnd of [false, true]) {
        const row = await claimed();
        await sut.probe.run(`UPDATE tasks SET reserved_by = 'another-instance', reserved_at = ? WHERE id = ?`, now, row.id);
        const before = await rowState(row.id);
        const out = await sut.store.commit(batch({
          startRuns: startsOf([row], tick()),
          ...(withEnd ? end('Completed', 'Completed')(row.id, tokenOf(row.id)) : {}),
          ...(company === 'beside a log line' ? { logs: [logOf(row.id)] } : {}),
        }));
        expect(out.started).toEqual([false]);
        if (withEnd) expect(out.finished).toEqual([false]);
        expect(await rowState(row.id)).toEqual(before);
      }
    });
  }

  it('the read models equal a recomputation after every refused write', async () => {
    const { live, rebuilt } = await readModelsAndRebuild(sut);
    expect(live).toEqual(rebuilt);
  });
});
