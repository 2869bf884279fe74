import { afterEach, describe, expect, it, vi } from 'vitest';
import type { VueWrapper } from '@vue/test-utils';
import type { BulkOperation } from '../../server/src/contracts/operations.js';
import { bulkSummary } from '../../src/renderer/platform/desktop/createDesktopPlatform.js';
import { createFakePlatform } from './fakePlatform.js';
import { serveFixtures } from './fixtures.js';
import { mountDashboard, settle } from './harness.js';

const OPERATOR = { username: 'operator', canManage: true, token: 'jwt', expiresAt: '2099-01-01T00:00:00Z' };
let mounted: VueWrapper | null = null;
afterEach(() => {
  mounted?.unmount();
  mounted = null;
  document.body.innerHTML = '';
});

const op = (state: BulkOperation['state'], processed: number): BulkOperation => ({
  operationId: 'b0000000-0000-4000-8000-000000000001', action: 'requeue', state, count: 3, processed, succeeded: processed, skipped: 0,
  startedAtUtc: '2026-11-23T10:00:00Z',
});

describe('bulk actions on a filtered task list', () => {
  it('the desktop platform offers them on a filtered list; the action sends the filter and the shown count, then follows progress and reloads', async () => {
    const platform = createFakePlatform({ session: OPERATOR, config: { managementEnabled: true }, manage: true });
    serveFixtures(platform);
    platform.handle('tasks.list', (p) => ({ items: [], totalCount: 3, page: p.page ?? 1, pageSize: p.pageSize ?? 20, totalPages: 1 }));
    platform.handle('management.bulk', () => op('Running', 1));
    let polls = 0;
    platform.handle('management.bulkStatus', () => (++polls < 2 ? op('Running', 2) : op('Completed', 3)));
    const { wrapper } = await mountDashboard(platform, '/tasks?statuses=Failed&onlyOccurrences=true&searchTerm=ACME-42');
    mounted = wrapper;
    await settle();
    const listsBefore = platform.callsOf('tasks.list').length;
    await wrapper.find('[data-bulk="requeue"]').trigger('click');
    await vi.waitFor(() => expect(wrapper.find('[data-testid="bulk-progress"]').text()).toContain('Completed'), { timeout: 5000 });
    expect(platform.callsOf('management.bulk')[0]).toEqual({
      action: 'requeue',
      expectedCount: 3,
      filter: expect.objectContaining({ statuses: ['Failed'], onlyOccurrences: true, searchTerm: 'ACME-42', searchScope: 'NamesAndArguments' }),
    });
    expect(platform.callsOf('management.bulk')[0]).not.toHaveProperty('filter.page');
    expect(wrapper.find('[data-testid="bulk-message"]').text()).toContain('3 done');
    await vi.waitFor(() => expect(platform.callsOf('tasks.list').length).toBeGreaterThan(listsBefore), { timeout: 5000 });
  });

  it('progress follows the BulkProgress events while the live connection is up; GET /management/bulk/{id} is polled only while it is down', async () => {
    const platform = createFakePlatform({ session: OPERATOR, config: { managementEnabled: true }, manage: true });
    serveFixtures(platform);
    platform.handle('tasks.list', (p) => ({ items: [], totalCount: 3, page: p.page ?? 1, pageSize: p.pageSize ?? 20, totalPages: 1 }));
    // The first event overtakes the POST answer (two channels): the bar still shows it.
    platform.handle('management.bulk', async () => {
      platform.bulkProgress.emit(op('Running', 1));
      return op('Running', 0);
    });
    const { wrapper } = await mountDashboard(platform, '/tasks?statuses=Failed');
    mounted = wrapper;
    platform.live.setState('connected');
    await settle();
    const shown = () => wrapper.find('[data-testid="bulk-progress"]').text();
    await wrapper.find('[data-bulk="requeue"]').trigger('click');
    await settle();
    expect(shown()).toContain('1 / 3');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      await vi.advanceTimersByTimeAsync(5_000);
      expect(platform.callsOf('management.bulkStatus')).toEqual([]);
      platform.bulkProgress.emit(op('Running', 0)); // late and older: ignored
      await vi.advanceTimersByTimeAsync(0);
      expect(shown()).toContain('1 / 3');

      platform.handle('management.bulkStatus', () => op('Running', 2));
      platform.live.setState('reconnecting');
      await vi.advanceTimersByTimeAsync(1_000);
      const polled = platform.callsOf('management.bulkStatus').length;
      expect(polled).toBeGreaterThanOrEqual(2);
      expect(shown()).toContain('2 / 3');

      platform.live.setState('connected');
      await vi.advanceTimersByTimeAsync(0);
      expect(platform.callsOf('management.bulkStatus')).toHaveLength(polled + 1); // once, for what it missed
      await vi.advanceTimersByTimeAsync(5_000);
      expect(platform.callsOf('management.bulkStatus')).toHaveLength(polled + 1);
      platform.bulkProgress.emit(op('Completed', 3));
      await vi.advanceTimersByTimeAsync(0);
      expect(shown()).toContain('3 / 3 · Completed');
      expect(wrapper.find('[data-testid="bulk-message"]').text()).toContain('3 done');
    } finally {
      vi.useRealTimers();
    }
    wrapper.unmount();
    mounted = null;
    expect(platform.bulkProgress.followers()).toBe(0);
  });

  it('no bulk actions on the web platform, nor on an unfiltered list', async () => {
    const web = createFakePlatform({ session: OPERATOR, config: { managementEnabled: true }, manage: false });
    serveFixtures(web);
    const a = await mountDashboard(web, '/tasks?statuses=Failed');
    mounted = a.wrapper;
    await settle();
    expect(a.wrapper.find('[data-testid="bulk-actions"]').exists()).toBe(false);
    a.wrapper.unmount();
    const desktop = createFakePlatform({ session: OPERATOR, config: { managementEnabled: true }, manage: true });
    serveFixtures(desktop);
    const b = await mountDashboard(desktop, '/tasks');
    mounted = b.wrapper;
    await settle();
    expect(b.wrapper.find('[data-testid="bulk-actions"]').exists()).toBe(false);
  });

  it('the confirmation names the action, the count and what the filter selects', () => {
    expect(bulkSummary({ action: 'requeue', filter: { statuses: ['Failed'], onlyOccurrences: true }, expectedCount: 1234 })).toBe('Requeue 1,234 failed occurrences');
    expect(bulkSummary({ action: 'cancel', filter: { statuses: ['Queued', 'WaitingQueue'] }, expectedCount: 1 })).toBe('Cancel 1 queued or waiting queue task');
  });
});
