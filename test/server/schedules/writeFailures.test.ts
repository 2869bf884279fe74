// @backends sqlite — faults injected with SQLite triggers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../fixtures/waitFor.js';
import { createEngine, openSqliteStorage, type Engine, type SqliteStorage } from '../../../server/src/index.js';
import { failStatusAudit, failTaskWrite, isInjected, snapshotStore, snapshotTask, type Fault } from '../../fixtures/faults.js';

// Schedule operations (requeue, resume, cancel) and the materializer, each with a write made to
// fail inside SQLite: the schedule row, its occurrences and their audit trails stay exactly as
// they were. The engine runs on an injected clock (no wall-clock luck); "down for a while" is an
// earlier engine on the same file with an earlier clock.

const T0 = Date.parse('2026-03-02T10:00:30.000Z');
const HOUR = 3_600_000;

let dir: string;
let storage: SqliteStorage;
const engines: Engine[] = [];
const faults: Fault[] = [];
afterEach(async () => {
  while (faults.length > 0) faults.pop()!.disarm();
  while (engines.length > 0) await engines.pop()!.stop({ graceMs: 0 });
  storage?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function open(): void {
  dir = mkdtempSync(join(tmpdir(), 'svc-schedule-faults-'));
  storage = openSqliteStorage({ file: join(dir, 'tasks.db') });
}

const arm = (f: Fault) => (faults.push(f), f);

/** An engine at a fixed instant whose errors land in `errors`. */
function engineAt(now: number, errors: unknown[] = []): Engine {
  const e = createEngine({ storage, clock: () => now, pollIntervalMs: 20, onError: (err) => void errors.push(err) });
  engines.push(e);
  return e;
}

/** A schedule written `downFor` ms before T0 by an engine that then went down. */
async function scheduleCreatedBefore(downFor: number, definition: Parameters<Engine['schedules']['upsert']>[0]): Promise<string> {
  const before = engineAt(T0 - downFor);
  return before.schedules.upsert(definition);
}

const rows = <T = Record<string, unknown>>(sql: string, ...params: unknown[]) => storage.db.prepare(sql).all(...params) as T[];
const occurrenceIds = (scheduleId: string) =>
  rows<{ id: string }>('SELECT id FROM tasks WHERE parent_task_id = ? ORDER BY nominal_slot_at', scheduleId).map((r) => r.id);
const statusOf = (id: string) => storage.db.prepare('SELECT status FROM tasks WHERE id = ?').pluck().get(id) as string;
const auditsOf = (id: string) => storage.db.prepare('SELECT new_status FROM status_audit WHERE task_id = ? ORDER BY id').pluck().all(id) as string[];

describe('schedule operations whose transaction fails change nothing', () => {
  it('materialize: a failing occurrence audit leaves the cursor, the schedule row and the store as they were; the next tick after the fault writes the backlog', async () => {
    open();
    const id = await scheduleCreatedBefore(3 * HOUR, { key: 'hourly', type: 'Jobs.Unhandled', every: '1h', misfire: { policy: 'ReplayAll', overflowCap: 100 } });
    const before = snapshotStore(storage.db);
    const errors: unknown[] = [];
    const fault = arm(failStatusAudit(storage.db, { status: 'Pending', parentId: id }));
    const engine = engineAt(T0, errors);
    await engine.start();
    await waitFor(() => errors.some(isInjected), 5000, 'the materializer tick to fail', 5);
    expect(snapshotStore(storage.db)).toEqual(before);
    fault.disarm();
    // The ticker retries on its next interval (1 s).
    await waitFor(() => occurrenceIds(id).length === 3 && occurrenceIds(id).every((o) => statusOf(o) === 'Queued'), 5000, 'the backlog after the fault', 5);
    for (const o of occurrenceIds(id)) expect(auditsOf(o)).toEqual(['Pending', 'Queued']);
  });

  it('requeue: when the Queued audit cannot be written the occurrence stays Failed with its audits; after the fault it is requeued and runs', async () => {
    open();
    const id = await scheduleCreatedBefore(1.5 * HOUR, { key: 'flaky', type: 'Jobs.Flaky', every: '1h', misfire: { policy: 'Skip' } });
    const engine = engineAt(T0);
    let calls = 0;
    engine.handle('Jobs.Flaky', async () => {
      if (++calls === 1) throw new Error('first delivery fails');
    }, { retry: { attempts: 1 } });
    await engine.start();
    await waitFor(() => occurrenceIds(id).length === 1 && statusOf(occurrenceIds(id)[0]!) === 'Failed', 5000, 'the occurrence to fail', 5);
    const occ = occurrenceIds(id)[0]!;
    const before = snapshotTask(storage.db, occ);
    const fault = arm(failStatusAudit(storage.db, { status: 'Queued', taskId: occ }));
    const err = await engine.schedules.requeue(occ).then(() => null, (e: unknown) => e);
    expect(isInjected(err)).toBe(true);
    expect(snapshotTask(storage.db, occ)).toEqual(before);
    fault.disarm();
    expect(await engine.schedules.requeue(occ)).toMatchObject({ status: 'Succeeded', taskId: occ });
    await waitFor(() => statusOf(occ) === 'Completed', 5000, 'the requeued occurrence to complete', 5);
    expect(auditsOf(occ)).toEqual(['Pending', 'Queued', 'InProgress', 'Failed', 'Queued', 'InProgress', 'Completed']);
  });

  it('cancel: when the last occurrence cannot be cancelled, neither the schedule nor any occurrence is', async () => {
    open();
    const id = await scheduleCreatedBefore(3 * HOUR, { key: 'nobody-runs-it', type: 'Jobs.Unhandled', every: '1h' });
    const engine = engineAt(T0);
    await engine.start();
    await waitFor(() => occurrenceIds(id).length === 3 && occurrenceIds(id).every((o) => statusOf(o) === 'Queued'), 5000, 'three queued occurrences', 5);
    const last = occurrenceIds(id).at(-1)!;
    const before = snapshotStore(storage.db);
    const fault = arm(failStatusAudit(storage.db, { status: 'Cancelled', taskId: last }));
    const err = await engine.schedules.cancel('nobody-runs-it').then(() => null, (e: unknown) => e);
    expect(isInjected(err)).toBe(true);
    expect(snapshotStore(storage.db)).toEqual(before);
    fault.disarm();
    expect(await engine.schedules.cancel('nobody-runs-it')).toMatchObject({ status: 'Succeeded', taskId: id });
    expect([id, ...occurrenceIds(id)].map(statusOf)).toEqual(['Cancelled', 'Cancelled', 'Cancelled', 'Cancelled']);
  });

  it('resume: when the halt cannot be released the resume fails and the schedule keeps its halt; after the fault it re-plans (and halts again)', async () => {
    open();
    const id = await scheduleCreatedBefore(5 * HOUR, { key: 'backlog', type: 'Jobs.Unhandled', every: '1h', misfire: { policy: 'ReplayAll', overflowCap: 2 } });
    const engine = engineAt(T0);
    await engine.start();
    // Four missed hourly slots (the fifth is the current one) over a cap of 2.
    await waitFor(() => storage.db.prepare('SELECT halt FROM tasks WHERE id = ?').pluck().get(id) !== null, 5000, 'the schedule to halt', 5);
    const before = snapshotStore(storage.db);
    const fault = arm(failTaskWrite(storage.db, { event: 'UPDATE', taskId: id, haltSet: false }));
    const err = await engine.schedules.resume('backlog').then(() => null, (e: unknown) => e);
    expect(isInjected(err)).toBe(true);
    expect(snapshotStore(storage.db)).toEqual(before);
    fault.disarm();
    expect(await engine.schedules.resume('backlog')).toMatchObject({ status: 'Succeeded', releasedHalt: true });
    const halt = JSON.parse(storage.db.prepare('SELECT halt FROM tasks WHERE id = ?').pluck().get(id) as string) as Record<string, unknown>;
    expect(halt).toMatchObject({ reason: 'OverflowCapExceeded', detectedAtLeast: 4, isExact: true, atUtc: new Date(T0).toISOString() });
  });
});
