import { afterEach, describe, expect, it } from 'vitest';
import type { ReadDb } from '../../../server/src/storage/common/reads/ReadDb.js';
import { createScheduleStates } from '../../../server/src/storage/common/reads/scheduleStates.js';
import { sqliteReadDb } from '../../../server/src/storage/sqlite/monitoring/sqliteReadDb.js';
import { insertTask, createTempDatabase, type TempDb } from '../../fixtures/server/servedMonitoring.js';

// The scrape's svc_schedules gauge reads the schedules over their partial indexes: O(schedules),
// never a walk of every Pending row (at 1 M rows that walk made the scrape's p99 0.85–1.3 s).

let t: TempDb | undefined;
afterEach(() => {
  t?.cleanup();
  t = undefined;
});

describe('the schedule-state counts of the metrics scrape', () => {
  it('count active and halted schedules among many Pending one-shot rows, walking only the partial indexes', async () => {
    t = createTempDatabase();
    const { db } = t;
    const now = Date.now();
    // 20,000 delayed one-shot tasks: Pending, not schedules (plain SQL; this read looks at the table only).
    db.prepare(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
      INSERT INTO tasks (id, type, handler, request, queue, status, audit_level, created_at, scheduled_at, is_recurring)
      SELECT 'pending-' || i, 'Shop.Export', 'Shop.ExportHandler', '{}', 'default', 'Pending', 'Full', ?, ? + i, 0 FROM n`).run(now, now);
    const schedule = { status: 'Pending', is_recurring: 1, occurrence_mode: 'Durable', scheduled_at: now + 60_000 };
    insertTask(db, { ...schedule, type: 'Reports.Nightly' });
    insertTask(db, { ...schedule, type: 'Reports.Hourly' });
    insertTask(db, { ...schedule, type: 'Reports.Minutely', halt: '{"detectedAtLeast":100000,"isExact":false}' });
    db.exec('ANALYZE');

    const reads = sqliteReadDb(db);
    const asked: string[] = [];
    const recording: ReadDb = { ...reads, query: (sql, params) => (asked.push(sql), reads.query(sql, params)) };
    expect(await createScheduleStates(recording)()).toEqual({ active: 2, halted: 1 });

    expect(asked).toHaveLength(1);
    const plan = (db.prepare(`EXPLAIN QUERY PLAN ${asked[0]}`).all() as { detail: string }[]).map((r) => r.detail).filter((d) => /tasks/.test(d));
    expect(plan).toEqual([expect.stringContaining('ix_tasks_schedule_due'), expect.stringContaining('ix_tasks_halted')]);
  });
});
