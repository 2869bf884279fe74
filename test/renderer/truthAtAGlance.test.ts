import { afterEach, describe, expect, it, vi } from 'vitest';
import { flushPromises, type VueWrapper } from '@vue/test-utils';
import type { TaskDetail } from '../../server/src/contracts/task.js';
import { formatDuration, formatRelative, humanizeMessage } from '../../src/renderer/format.js';
import { createFakePlatform } from './fakePlatform.js';
import { FAILED_DETAIL, FAILED_ID, OVERVIEW, SCHEDULE_DETAIL, SCHEDULE_ID, page, serveFixtures, summary } from './fixtures.js';
import { mountDashboard, settle } from './harness.js';

const SIGNED_IN = { username: 'admin', canManage: false, token: 'jwt', expiresAt: '2099-01-01T00:00:00Z' };
let mounted: VueWrapper | null = null;
afterEach(() => {
  mounted?.unmount();
  mounted = null;
  document.body.innerHTML = '';
  window.localStorage.clear();
});
async function open(platform: ReturnType<typeof createFakePlatform>, path: string) {
  const result = await mountDashboard(platform, path);
  mounted = result.wrapper;
  return result;
}
function platformWithFixtures() {
  const platform = createFakePlatform({ session: SIGNED_IN });
  serveFixtures(platform);
  return platform;
}

const HALTED: TaskDetail = {
  ...SCHEDULE_DETAIL,
  taskKey: 'nightly-report',
  scheduledExecutionUtc: '2026-11-12T08:01:00Z',
  scheduleDefinition: { everyMs: 60_000, anchorUtc: '2026-11-01T00:00:00Z', timeZone: 'Europe/Rome', misfirePolicy: 'ReplayAll', misfireWindowMs: 86_400_000, overflowCap: 100 },
  resumeOutlook: { missedSlots: 1203, missedSlotsIsExact: true, slotsInWindow: 1203, slotsInWindowIsExact: true, behindSeconds: 72_000, outcome: 'HaltsAgain', replayCount: 0, skipCount: 0, capNeeded: 1203 },
};

describe('viewer time zone', () => {
  it('a chosen zone is remembered, sent to the overview and statistics, named on the page and used for every time', async () => {
    const platform = platformWithFixtures();
    platform.handle('dashboard.overview', (p) => ({
      ...OVERVIEW,
      window: { timeZone: p.timeZone ?? 'UTC', fromUtc: '2026-11-22T15:00:00Z', toUtc: '2026-11-23T15:00:00Z' },
    }));
    const { wrapper, router } = await open(platform, '/');
    expect(platform.callsOf('dashboard.overview').at(-1)).toEqual({ range: 'Today', timeZone: 'UTC' });
    await wrapper.find('[data-testid="tz-select"]').setValue('Asia/Tokyo');
    await settle();
    expect(window.localStorage.getItem('svc-monitoring.timeZone')).toBe('Asia/Tokyo');
    expect(platform.callsOf('dashboard.overview').at(-1)).toEqual({ range: 'Today', timeZone: 'Asia/Tokyo' });
    const note = wrapper.find('[data-testid="overview-window"]').text();
    expect(note).toContain('Asia/Tokyo');
    expect(note).toContain('Today: since');
    expect(note).toMatch(/12:00:00\s?AM|00:00:00/); // 15:00 UTC is local midnight in Tokyo
    expect(wrapper.find('[aria-label="Tasks today"]').text()).toContain('since 00:00 Asia/Tokyo');

    await router.push('/statistics');
    await settle();
    expect(platform.callsOf('statistics.taskTypes').at(-1)).toMatchObject({ timeZone: 'Asia/Tokyo' });
    expect(platform.callsOf('statistics.successRateTrend').at(-1)).toMatchObject({ timeZone: 'Asia/Tokyo' });

    // A task time: 10:00:05 UTC is 19:00:05 in Tokyo; the hover names the zone and UTC.
    await router.push(`/tasks/${FAILED_ID}`);
    await settle();
    const last = wrapper.findAll('[data-testid="task-fields"] time').find((t) => t.attributes('datetime') === '2026-11-22T10:00:05Z')!;
    expect(last.text()).toMatch(/7:00:05\s?PM|19:00:05/);
    expect(last.attributes('title')).toContain('Asia/Tokyo');
    expect(last.attributes('title')).toContain('2026-11-22 10:00:05.000 UTC');
  });

  it('the remembered zone is read back on the next visit', async () => {
    window.localStorage.setItem('svc-monitoring.timeZone', 'America/Los_Angeles');
    const platform = platformWithFixtures();
    await open(platform, '/');
    expect(platform.callsOf('dashboard.overview').at(-1)).toEqual({ range: 'Today', timeZone: 'America/Los_Angeles' });
  });
});

describe('durations, errors and times that tell the truth', () => {
  it('a failed run shows how long it ran, labelled, in the list and the detail; a completed one its measured time', async () => {
    const platform = platformWithFixtures();
    platform.handle('tasks.list', () =>
      page([
        summary(FAILED_ID, { status: 'Failed', type: 'AlwaysFails', executionTimeMs: 0, runDurationMs: 812, errorSummary: 'TimeoutError: ran over 800 ms' }),
        summary('a0000000-0000-4000-8000-000000000001', { status: 'Completed', executionTimeMs: 3439.089 }),
      ]),
    );
    platform.handle('tasks.get', () => ({ ...FAILED_DETAIL, runDurationMs: 812 }));
    const { wrapper, router } = await open(platform, '/tasks');
    const cells = wrapper.findAll('[data-testid="duration"]').map((c) => c.text());
    expect(cells).toEqual(['ran 812 ms', '3.44 s']);
    expect(wrapper.find('[data-testid="duration"]').attributes('title')).toContain('InProgress');
    await router.push(`/tasks/${FAILED_ID}`);
    await settle();
    const field = wrapper.find('[data-testid="run-length"]');
    expect(field.text()).toContain('ran 812 ms');
    expect(field.text()).toContain('measured execution time reads 0 ms');
    expect(wrapper.find('[data-testid="task-fields"]').text()).toContain('Ran for');
  });

  it('the error column shows the first line of each error when the list is filtered on Failed, and not otherwise', async () => {
    const platform = platformWithFixtures();
    platform.handle('tasks.list', (q) =>
      page([summary(FAILED_ID, { status: 'Failed', type: 'AlwaysFails', errorSummary: 'InvalidOperationException: card declined' })].filter(() => q.statuses?.includes('Failed') ?? true)),
    );
    const { wrapper } = await open(platform, '/tasks');
    expect(wrapper.find('[data-testid="error-column"]').exists()).toBe(false);
    await wrapper.find('input[name="status-Failed"]').trigger('change');
    await settle();
    expect(wrapper.find('[data-testid="error-column"]').text()).toBe('Error');
    expect(wrapper.find('[data-testid="error-summary"]').text()).toBe('InvalidOperationException: card declined');
  });

  it('list times are relative with the absolute time on hover; the timeline has milliseconds and no second copy of the exception', async () => {
    const platform = platformWithFixtures();
    const created = new Date(Date.now() - 3 * 60_000 - 5_000).toISOString();
    platform.handle('tasks.list', () => page([summary(FAILED_ID, { status: 'Failed', createdAtUtc: created })]));
    const exception = 'System.InvalidOperationException: card declined\n   at Demo.Billing.Charge()';
    platform.handle('tasks.get', () => ({ ...FAILED_DETAIL, exception }));
    platform.handle('tasks.statusAudit', (p) => ({
      audits: [
        { id: 3, queuedTaskId: FAILED_ID, updatedAtUtc: '2026-11-22T10:00:05.917Z', newStatus: 'Failed', exception },
        { id: 2, queuedTaskId: FAILED_ID, updatedAtUtc: '2026-11-22T10:00:05.104Z', newStatus: 'InProgress' },
        { id: 1, queuedTaskId: FAILED_ID, updatedAtUtc: '2026-11-22T10:00:05.021Z', newStatus: 'Queued' },
      ],
      totalCount: 3,
      skip: p.skip ?? 0,
      take: p.take ?? 100,
    }));
    const { wrapper, router } = await open(platform, '/tasks');
    const createdCell = wrapper.find(`[data-task-id="${FAILED_ID}"] time`);
    expect(createdCell.text()).toBe('3 minutes ago');
    expect(createdCell.attributes('title')).toContain('UTC');
    await router.push(`/tasks/${FAILED_ID}`);
    await settle();
    const stamps = wrapper.findAll('[data-testid="status-timeline"] time').map((t) => t.text());
    expect(stamps.map((s) => s.match(/\d{2}:\d{2}:\d{2}\.\d{3}/)?.[0])).toEqual(['10:00:05.917', '10:00:05.104', '10:00:05.021']);
    expect(wrapper.find('[data-testid="task-exception"]').text()).toContain('at Demo.Billing.Charge()');
    expect(wrapper.find('[data-testid="status-timeline"]').text()).not.toContain('at Demo.Billing.Charge()');
    expect(wrapper.find('[data-testid="timeline-exception-ref"]').text()).toBe('System.InvalidOperationException: card declined (full text above)');
  });

  it('human units', () => {
    expect(humanizeMessage('Completed in 3439.089 ms')).toBe('Completed in 3.44 s');
    expect(formatDuration(72_000_000)).toBe('20h 0m');
    expect(formatDuration(3 * 86_400_000 + 7_200_000)).toBe('3d 2h');
    expect(formatRelative(new Date(Date.now() - 2 * 3_600_000).toISOString())).toBe('2 hours ago');
  });
});

describe('schedules are not work; halts are headlines', () => {
  it('queue pending work leaves out schedule definitions and recurring rows between runs', async () => {
    const platform = platformWithFixtures();
    platform.handle('dashboard.overview', () => ({
      ...OVERVIEW,
      queueSummaries: [{ queueName: 'default', pendingCount: 6, inProgressCount: 0, completedCount: 3, failedCount: 0, throttledCount: 0, recurringWaitingCount: 6 }],
    }));
    const { wrapper } = await open(platform, '/');
    expect(wrapper.find('[data-testid="queue-pending"]').text()).toBe('0');
    expect(wrapper.find('[data-testid="queue-schedules"]').text()).toBe('6');
  });

  it('the overview leads with each halted schedule: how far behind, its definition, and that resume will halt again', async () => {
    const platform = platformWithFixtures();
    platform.handle('dashboard.overview', () => ({ ...OVERVIEW, catchUpBacklog: { ...OVERVIEW.catchUpBacklog, lagSeconds: 0, haltedSchedules: 1 } }));
    platform.handle('tasks.get', () => HALTED);
    const { wrapper } = await open(platform, '/');
    await settle();
    const headline = wrapper.find('[data-testid="halt-headline"]');
    expect(headline.text()).toContain('1 halted schedule');
    expect(wrapper.find('[data-testid="halted-behind"]').text()).toBe('1,203 slots (20h 0m) behind');
    expect(wrapper.find('[data-testid="halted-verdict"]').text()).toContain('Resume will halt again at once: 1,203 slots in the misfire window exceed the overflow cap (100)');
    expect(wrapper.find('[data-testid="halted-definition"]').text()).toBe('every 1m 0s · in Europe/Rome · misfire policy ReplayAll · window 24h 0m · overflow cap 100');
    expect(wrapper.find('[data-testid="backlog-lag"]').text()).toContain('halted schedules are not in the backlog');
    expect(headline.text()).not.toContain('≥');
  });

  it('the schedule page says Halted (not Pending), explains the overdue slot, shows the definition and what resume will do', async () => {
    const platform = platformWithFixtures();
    platform.handle('tasks.get', () => HALTED);
    const { wrapper } = await open(platform, `/tasks/${SCHEDULE_ID}`);
    expect(wrapper.find('[data-testid="schedule-state"]').text()).toBe('Halted');
    expect(wrapper.find('[data-testid="schedule-status"]').text()).toBe('Halted (row status Pending)');
    expect(wrapper.find('header .badge, header [data-status]').exists()).toBe(false);
    expect(wrapper.find('[data-testid="scheduled-field"]').text()).toContain('overdue: the schedule is halted');
    expect(wrapper.find('[data-testid="schedule-definition"]').text()).toContain('Overflow cap');
    const outlook = wrapper.find('[data-testid="resume-outlook"]').text();
    expect(outlook).toContain('Resume will halt again');
    expect(outlook).toContain('raise the overflow cap to at least 1,203');
    expect(wrapper.find('[data-testid="halt-detected"]').text()).toBe('250');
  });

  it('a failed occurrence in the schedule\'s list shows how long it ran', async () => {
    const platform = platformWithFixtures();
    platform.handle('tasks.get', () => HALTED);
    platform.handle('tasks.occurrences', (p) => ({
      occurrences: [
        { id: FAILED_ID, parentTaskId: SCHEDULE_ID, status: 'Failed', createdAtUtc: '2026-11-22T07:00:00Z', executionTimeMs: 0, runDurationMs: 450, occurrence: { slotUtc: '2026-11-22T07:00:00Z', runNumber: 3, misfireKind: 'OnTime' } },
      ],
      totalCount: 1,
      skip: p.skip ?? 0,
      take: p.take ?? 100,
    }));
    const { wrapper } = await open(platform, `/tasks/${SCHEDULE_ID}`);
    expect(wrapper.find('[data-testid="occurrence-duration"]').text()).toBe('ran 450 ms');
  });
});

describe('auto-refresh control', () => {
  it('a paused list holds its rows and counts new events; showing them reloads', async () => {
    const platform = createFakePlatform({ session: SIGNED_IN, config: { eventDebounceMs: 10 } });
    serveFixtures(platform);
    const { wrapper } = await open(platform, '/tasks');
    platform.live.setState('connected');
    await settle();
    await wrapper.find('[data-testid="refresh-toggle"]').trigger('click');
    const before = platform.callsOf('tasks.list').length;
    // The 10 ms debounce window runs on fake timeouts, so it has certainly closed (and refreshed
    // nothing) when the test looks.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      for (let i = 0; i < 3; i++) {
        platform.live.emit({ kind: 'Completed', taskId: FAILED_ID, eventDateUtc: new Date().toISOString(), severity: 'Information', taskType: 'Demo.X.Y', message: 'done' });
      }
      vi.advanceTimersByTime(1_000);
      await flushPromises();
    } finally {
      vi.useRealTimers();
    }
    await settle();
    expect(platform.callsOf('tasks.list').length).toBe(before);
    expect(wrapper.find('[data-testid="refresh-new"]').text()).toBe('3 new');
    await wrapper.find('[data-testid="refresh-new"]').trigger('click');
    await settle();
    expect(platform.callsOf('tasks.list').length).toBe(before + 1);
    expect(wrapper.find('[data-testid="refresh-toggle"]').text()).toBe('Pause updates');
  });

  it('the live feed pauses too, and shows durations in human units', async () => {
    const platform = createFakePlatform({ session: SIGNED_IN, config: { eventDebounceMs: 10 } });
    serveFixtures(platform);
    const { wrapper } = await open(platform, '/live');
    platform.live.setState('connected');
    platform.live.emit({ kind: 'Completed', taskId: FAILED_ID, eventDateUtc: new Date().toISOString(), severity: 'Information', taskType: 'Demo.X.Y', message: 'Completed in 3439.089 ms' });
    await settle();
    expect(wrapper.find('[data-testid="live-feed"]').text()).toContain('Completed in 3.44 s');
    await wrapper.find('[data-testid="refresh-toggle"]').trigger('click');
    platform.live.emit({ kind: 'Started', taskId: FAILED_ID, eventDateUtc: new Date().toISOString(), severity: 'Information', taskType: 'Demo.X.Y', message: 'go' });
    await settle();
    expect(wrapper.findAll('[data-testid="live-feed"] li')).toHaveLength(1);
    expect(wrapper.find('[data-testid="refresh-new"]').text()).toBe('1 new');
    await wrapper.find('[data-testid="refresh-new"]').trigger('click');
    await settle();
    expect(wrapper.findAll('[data-testid="live-feed"] li')).toHaveLength(2);
  });
});

describe('statistics say what they count', () => {
  it('labels name created tasks vs completed runs and the window', async () => {
    const platform = platformWithFixtures();
    const { wrapper } = await open(platform, '/statistics');
    expect(wrapper.find('[data-testid="types-label"]').text()).toContain('tasks created the last 7 days (UTC)');
    expect(wrapper.find('[data-testid="times-label"]').text()).toContain('completed runs that ended the last 7 days (UTC)');
    expect(wrapper.find('[data-testid="trend-label"]').text()).toContain('finished runs by the day they ended');
  });
});
