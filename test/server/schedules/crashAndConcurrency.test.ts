// @backends sqlite deferred — child processes killed or racing on one SQLite file (on PostgreSQL: test/server/multiInstance).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { bundledScript } from '../../fixtures/bundledScript.js';
import { ms, openScheduleHarness } from '../../fixtures/server/scheduleHarness.js';

const CHILD = join(import.meta.dirname, '../../fixtures/server/materializeChild.ts');
const T0 = ms('2026-02-02T10:00:30Z');
const MINUTE = 60_000;

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** `count` every-minute schedules created at T0, ReplayAll with a cap above a day of slots. */
async function seed(count: number): Promise<{ file: string; ids: string[] }> {
  dir = mkdtempSync(join(tmpdir(), 'svc-schedules-crash-'));
  const file = join(dir, 'tasks.db');
  const h = openScheduleHarness({ file, startAt: new Date(T0).toISOString() });
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    ids.push(await h.manager.upsert({ key: `m${i}`, type: 'Crash.Minute', cron: '* * * * *', misfire: { policy: 'ReplayAll', overflowCap: 2000 } }));
  }
  h.db.close();
  return { file, ids };
}

function startChild(file: string, now: number, step = 0, ticks = 1): { child: ChildProcess; done: Promise<number | null>; output: () => string } {
  const child = spawn(process.execPath, [bundledScript(CHILD), file, String(now), String(step), String(ticks)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const done = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, done, output: () => out };
}

const writtenBy = (output: string): number => Number(/done (\d+)/.exec(output)![1]);

/**
 * Every occurrence, in either form: a task row, or a compact occurrence (a catch-up of at least
 * `compactFrom` rows in one transaction, migration 15) shown as its task row.
 */
const OCCURRENCES = `(SELECT parent_task_id, nominal_slot_at, run_number FROM tasks WHERE parent_task_id IS NOT NULL
  UNION ALL SELECT parent_task_id, nominal_slot_at, run_number FROM pending_occurrence_tasks)`;

/** Every schedule has exactly the minute slots in (T0, through], numbered 1…n, once each (in either form). */
function verify(file: string, ids: string[], through: number): number {
  const db = new BetterSqlite3(file, { readonly: true });
  const expected: number[] = [];
  for (let t = Math.ceil((T0 + 1) / MINUTE) * MINUTE; t <= through; t += MINUTE) expected.push(t);
  let total = 0;
  const dupes = db.prepare(`SELECT COUNT(*) FROM (SELECT parent_task_id, nominal_slot_at FROM ${OCCURRENCES} GROUP BY 1, 2 HAVING COUNT(*) > 1)`).pluck().get();
  expect(dupes).toBe(0);
  for (const id of ids) {
    const rows = db.prepare(`SELECT nominal_slot_at AS slot, run_number AS n FROM ${OCCURRENCES} WHERE parent_task_id = ? ORDER BY nominal_slot_at`).all(id) as { slot: number; n: number }[];
    expect(rows.map((r) => r.slot)).toEqual(expected);
    expect(rows.map((r) => r.n)).toEqual(expected.map((_, i) => i + 1));
    const cursor = db.prepare('SELECT cursor_at FROM tasks WHERE id = ?').pluck().get(id);
    expect(cursor).toBe(expected.at(-1));
    total += rows.length;
  }
  const audits = db.prepare("SELECT COUNT(*) FROM status_audit a JOIN tasks t ON t.id = a.task_id WHERE t.parent_task_id IS NOT NULL AND a.new_status = 'Pending'").pluck().get();
  const taskRows = db.prepare('SELECT COUNT(*) FROM tasks WHERE parent_task_id IS NOT NULL').pluck().get();
  // one Pending audit per occurrence written as a task row, none lost or doubled (a compact one gets its audit when it becomes a task row)
  expect(audits).toBe(taskRows);
  db.close();
  return total;
}

describe('crash and concurrency (separate engine processes on one SQLite file)', () => {
  it('kill -9 while materializing a day of catch-up: a new engine finishes with no duplicate and no lost slot', async () => {
    const { file, ids } = await seed(60);
    const now = T0 + 24 * 3_600_000;
    const { child, done } = startChild(file, now);
    const reader = new BetterSqlite3(file, { readonly: true });
    const written = reader.prepare(`SELECT COUNT(*) FROM ${OCCURRENCES}`).pluck();
    let seen = 0;
    for (let i = 0; i < 2000 && seen === 0; i++) {
      await new Promise((r) => setTimeout(r, 5));
      seen = written.get() as number;
    }
    child.kill('SIGKILL');
    const code = await done;
    const atKill = written.get() as number;
    reader.close();
    expect(code).toBeNull(); // killed, not finished
    expect(atKill).toBeGreaterThan(0);
    expect(atKill).toBeLessThan(60 * 1440); // it really was mid-way
    expect(atKill % 1440).toBe(0); // one transaction per schedule: no half-written schedule

    const h = openScheduleHarness({ file, graceMs: 5000, lookaheadMs: 2000 });
    await h.tick(now);
    h.db.close();
    expect(verify(file, ids, Math.floor((now + 2000) / MINUTE) * MINUTE)).toBe(60 * 1440); // 1440 slots each
  }, 90_000); // child processes writing 86,400 rows: a time limit for a loaded machine, not a speed check

  it('two engines materialize the same schedules at the same time: zero duplicates, zero lost slots', async () => {
    const { file, ids } = await seed(40);
    const now = T0 + 12 * 3_600_000;
    const a = startChild(file, now, 20_000, 8);
    const b = startChild(file, now, 20_000, 8);
    expect(await a.done).toBe(0);
    expect(await b.done).toBe(0);
    const last = now + 7 * 20_000 + 2000; // last tick's lookahead horizon
    const through = Math.floor(last / MINUTE) * MINUTE;
    const total = verify(file, ids, through);
    expect(total).toBe(40 * ((through - (T0 + 30_000)) / MINUTE + 1));
    // each slot was written by exactly one of the two processes; a tick that gave up waiting for
    // the other's lock (a loaded machine) committed some schedules before failing, uncounted
    const gaveUp = /waited too long for the lock/.test(a.output() + b.output());
    if (gaveUp) expect(writtenBy(a.output()) + writtenBy(b.output())).toBeLessThanOrEqual(total);
    else expect(writtenBy(a.output()) + writtenBy(b.output())).toBe(total);
  }, 90_000);
});
