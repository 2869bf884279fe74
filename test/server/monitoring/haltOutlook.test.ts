import { describe, expect, it } from 'vitest';
import { getJson, insertTask, login, useServed } from '../../fixtures/server/servedMonitoring.js';
import { BACKEND } from '../../fixtures/server/monitoredStore.js';

const NOW = Date.parse('2026-03-10T18:00:00Z');
const MIN = 60_000;
const HOUR = 60 * MIN;

function definition(overflowCap: number): string {
  return JSON.stringify({
    type: 'Demo.Ping',
    request: '{}',
    queue: null,
    auditLevel: null,
    cron: null,
    everyMs: MIN,
    anchorMs: NOW - 30 * HOUR,
    timeZone: 'Europe/Rome',
    misfire: { policy: 'ReplayAll', windowMs: 24 * HOUR, overflowCap },
    startAtMs: null,
    untilMs: null,
    maxRuns: null,
  });
}
const halt = JSON.stringify({ atUtc: new Date(NOW - HOUR).toISOString(), reason: 'OverflowCapExceeded', detectedAtLeast: 1140, isExact: true, cursorUtc: new Date(NOW - 20 * HOUR).toISOString(), scheduleVersion: 1 });

describe(`a halted schedule tells what resume would do (additive scheduleDefinition and resumeOutlook) on ${BACKEND}`, () => {
  const ids: Record<string, string> = {};
  const s = useServed({ now: () => NOW }, (db) => {
    const row = (key: string, cap: number) =>
      insertTask(db, { status: 'Pending', is_recurring: 1, occurrence_mode: 'Durable', misfire_policy: 'ReplayAll', time_zone_id: 'Europe/Rome', schedule_version: 1, task_key: key, halt, created_at: NOW - 30 * HOUR });
    ids.small = row('every-minute', 100);
    ids.large = row('every-minute-big-cap', 2000);
    db.prepare(`UPDATE tasks SET schedule_definition = ? WHERE id = ?`).run(definition(100), ids.small);
    db.prepare(`UPDATE tasks SET schedule_definition = ? WHERE id = ?`).run(definition(2000), ids.large);
    // A failed occurrence that ran 450 ms before throwing (executionTimeMs 0).
    ids.failedOccurrence = insertTask(db, {
      status: 'Failed', parent_task_id: ids.small, occurrence_mode: 'Durable', nominal_slot_at: NOW - 21 * HOUR, run_number: 1, misfire_kind: 'OnTime',
      created_at: NOW - 21 * HOUR, started_at: NOW - 21 * HOUR + 1000, last_execution_at: NOW - 21 * HOUR + 1450, execution_time_ms: 0, exception: 'Error: boom',
    });
  });

  it('an occurrence that failed shows how long it ran in the occurrence list', async () => {
    const token = await login(s.api);
    const page = (await getJson(`${s.api}/tasks/${ids.small}/occurrences`, token)).body;
    const o = page.occurrences.find((x: { id: string }) => x.id === ids.failedOccurrence);
    expect(o.executionTimeMs).toBe(0);
    expect(o.runDurationMs).toBe(450);
  });

  it('cap 100 against 1,199 missed slots: resume halts again, and the cap that lets it through is named', async () => {
    const token = await login(s.api);
    const d = (await getJson(`${s.api}/tasks/${ids.small}`, token)).body;
    expect(d.scheduleDefinition).toMatchObject({ everyMs: MIN, timeZone: 'Europe/Rome', misfirePolicy: 'ReplayAll', misfireWindowMs: 24 * HOUR, overflowCap: 100 });
    expect(d.resumeOutlook).toEqual({
      missedSlots: 1199,
      missedSlotsIsExact: true,
      slotsInWindow: 1199,
      slotsInWindowIsExact: true,
      behindSeconds: 20 * 3600,
      outcome: 'HaltsAgain',
      replayCount: 0,
      skipCount: 0,
      capNeeded: 1199,
    });
    const big = (await getJson(`${s.api}/tasks/${ids.large}`, token)).body;
    expect(big.resumeOutlook.outcome).toBe('Replays');
    expect(big.resumeOutlook.replayCount).toBe(1199);
  });
});
