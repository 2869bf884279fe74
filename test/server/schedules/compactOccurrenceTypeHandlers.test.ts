import { afterEach, describe, expect, it } from 'vitest';
import { createScheduleManager } from '../../../server/src/engine/schedules/index.js';
import { CATCH_UP_DOWN, CATCH_UP_T0 } from '../../fixtures/server/catchUpSchedules.js';
import { openStoreUnderTest, type StoreUnderTest } from '../../fixtures/server/storeUnderTest.js';
import { scheduleInternals } from '../../fixtures/scheduleInternals.js';

// A compact Pending occurrence carries the handler its engine named when it was written, which may
// differ from its schedule row's. Type and search filters resolve against the set of (type, handler)
// pairs (monitor_type_handlers): the writer of the compact rows adds their pairs to it, and so does
// the read-model rebuild. On the backend under test.

const opened: StoreUnderTest[] = [];
afterEach(async () => {
  for (const sut of opened.splice(0)) await sut.destroy();
});

describe('compact Pending occurrences in the set of (type, handler) pairs', () => {
  it('a catch-up written compact with a handler its schedule row does not name adds that pair; a rebuild finds it again', async () => {
    const sut = openStoreUnderTest();
    opened.push(sut);
    const clock = { now: CATCH_UP_T0 };
    const before = createScheduleManager(scheduleInternals(sut.store, () => clock.now, []), { compactFrom: 2 });
    await before.upsert({ key: 'renamed', type: 'Renamed.Job', every: '1h', misfire: { policy: 'ReplayAll', overflowCap: 100 } });
    // The engine that catches up names another handler for the type.
    const after = createScheduleManager({ ...scheduleInternals(sut.store, () => clock.now, []), handlerNameOf: (type) => `${type}Runner` }, { compactFrom: 2 });
    clock.now = CATCH_UP_T0 + CATCH_UP_DOWN;
    await after.materializer.drain(clock.now);

    const compact = Number(await sut.probe.value(`SELECT COUNT(*) FROM pending_occurrence_tasks WHERE type = 'Renamed.Job' AND handler = 'Renamed.JobRunner'`));
    expect(compact).toBeGreaterThanOrEqual(20);
    expect(Number(await sut.probe.value(`SELECT COUNT(*) FROM tasks WHERE handler = 'Renamed.JobRunner'`))).toBe(0);
    const pairs = () => sut.probe.rows(`SELECT type, handler FROM monitor_type_handlers WHERE type = 'Renamed.Job' ORDER BY 1, 2`);
    const both = [{ type: 'Renamed.Job', handler: 'Renamed.JobHandler' }, { type: 'Renamed.Job', handler: 'Renamed.JobRunner' }];
    expect(await pairs()).toEqual(both);

    await sut.probe.run(`DELETE FROM monitor_type_handlers`);
    await sut.store.rebuildReadModels();
    expect(await pairs()).toEqual(both);
  });
});
