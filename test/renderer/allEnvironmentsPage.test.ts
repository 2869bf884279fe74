import { flushPromises, mount } from '@vue/test-utils';
import { describe, expect, it } from 'vitest';
import type { EnvironmentSummaryRow, EnvironmentsSummary } from '../../src/shared/environmentsSummary.js';
import type { EnvironmentStatusView } from '../../src/shared/environmentStatus.js';
import type { DesktopBridge } from '../../src/shared/ipcContract.js';
import AllEnvironmentsPage from '../../src/renderer/desktop/components/AllEnvironmentsPage.vue';
import { createDesktopState } from '../../src/renderer/desktop/desktopState.js';
import { formatWait } from '../../src/renderer/desktop/summaryTable.js';

function env(id: string, name: string): EnvironmentStatusView {
  return {
    id,
    name,
    baseUrl: `https://${id}.example.com`,
    colour: '#2563eb',
    isProduction: false,
    session: { environmentId: id, auth: 'authenticated', canManage: false, managementEnabled: false, requireAuthentication: true, hasRememberedPassword: false },
    hub: { state: 'connected' },
    live: 'connected',
  } as EnvironmentStatusView;
}

const ROWS: EnvironmentSummaryRow[] = [
  { id: 'stg', name: 'Staging', isProduction: false, health: 'ok', live: 'connected', failedLastHour: 0, failedLastDay: 4, oldestWaitingMs: null, haltedSchedules: 0, tookMs: 20 },
  { id: 'prd', name: 'Production', isProduction: true, health: 'failing', live: 'connected', failedLastHour: 7, failedLastDay: 30, oldestWaitingMs: 7 * 60_000, haltedSchedules: 1, tookMs: 40 },
  { id: 'lab', name: 'Lab', isProduction: false, health: 'down', live: 'error', error: 'Cannot reach lab.example.com', tookMs: 5000 },
];

/** The page over a bridge that answers `summaries` in turn and counts the asks. */
function page(summaries: EnvironmentsSummary[], refreshEveryMs?: number) {
  let asked = 0;
  const bridge: DesktopBridge = {
    invoke: ((channel: string) => {
      if (channel !== 'environments.summary') return Promise.resolve({ ok: true, value: null });
      const value = summaries[Math.min(asked, summaries.length - 1)];
      asked++;
      return Promise.resolve({ ok: true, value });
    }) as DesktopBridge['invoke'],
    onEvent: () => () => undefined,
    platform: 'linux',
  };
  const controller = createDesktopState(bridge);
  controller.state.environments = [env('stg', 'Staging'), env('prd', 'Production'), env('lab', 'Lab')];
  controller.state.allOpen = true;
  const wrapper = mount(AllEnvironmentsPage, { props: { controller, ...(refreshEveryMs ? { refreshEveryMs } : {}) }, attachTo: document.body });
  const names = () => wrapper.findAll('tbody tr th[scope="row"] button').map((b) => b.text().replace('PROD', '').trim());
  return { wrapper, controller, names, asked: () => asked };
}

describe('all environments at a glance (renderer)', () => {
  it('shows one row per environment, worst first, with a table screen readers can read', async () => {
    const { wrapper, names } = page([{ at: new Date().toISOString(), rows: ROWS }]);
    await flushPromises();
    expect(names()).toEqual(['Lab', 'Production', 'Staging']);
    const headers = wrapper.findAll('thead th');
    expect(headers.map((h) => h.attributes('scope'))).toEqual(Array(7).fill('col'));
    // The arrow is decoration (aria-hidden): aria-sort says the order.
    expect(headers.map((h) => h.find('button').text().replace(/[▲▼]/, '').trim())).toEqual(['Environment', 'Health', 'Live', 'Failed (1 h)', 'Failed (24 h)', 'Oldest waiting', 'Halted schedules']);
    expect(wrapper.get('thead th:nth-child(2)').attributes('aria-sort')).toBe('descending');
    expect(wrapper.get('thead th:nth-child(1)').attributes('aria-sort')).toBe('none');
    const prod = wrapper.get('[data-testid="all-row-prd"]').findAll('td').map((c) => c.text());
    expect(prod).toEqual(['Failing', 'Connected', '7', '30', '7 min', '1']);
    const lab = wrapper.get('[data-testid="all-row-lab"]');
    expect(lab.text()).toContain('Cannot reach lab.example.com');
    expect(lab.findAll('td').map((c) => c.text())).toEqual(['Down', 'Error', '—', '—', '—', '—']);
    expect(wrapper.get('[data-testid="all-status"]').text()).toMatch(/^1 failing · 1 down · 3 in all · updated /);
    wrapper.unmount();
  });

  it('sorts by each column with its button (again: the other way), and says so in aria-sort', async () => {
    const { wrapper, names } = page([{ at: new Date().toISOString(), rows: ROWS }]);
    await flushPromises();
    await wrapper.get('[data-testid="sort-name"]').trigger('click');
    expect(names()).toEqual(['Lab', 'Production', 'Staging']);
    expect(wrapper.get('thead th:nth-child(1)').attributes('aria-sort')).toBe('ascending');
    await wrapper.get('[data-testid="sort-name"]').trigger('click');
    expect(names()).toEqual(['Staging', 'Production', 'Lab']);
    expect(wrapper.get('thead th:nth-child(1)').attributes('aria-sort')).toBe('descending');
    // Figures start largest first; a row without the figure (down) stays last either way.
    await wrapper.get('[data-testid="sort-failedLastDay"]').trigger('click');
    expect(names()).toEqual(['Production', 'Staging', 'Lab']);
    await wrapper.get('[data-testid="sort-failedLastDay"]').trigger('click');
    expect(names()).toEqual(['Staging', 'Production', 'Lab']);
    await wrapper.get('[data-testid="sort-oldestWaitingMs"]').trigger('click');
    expect(names()).toEqual(['Production', 'Staging', 'Lab']);
    await wrapper.get('[data-testid="sort-haltedSchedules"]').trigger('click');
    expect(names()).toEqual(['Production', 'Staging', 'Lab']);
    expect(wrapper.get('thead th:nth-child(7)').attributes('aria-sort')).toBe('descending');
    expect(wrapper.findAll('thead th[aria-sort="none"]')).toHaveLength(6);
    wrapper.unmount();
  });

  it('a click on an environment opens it (the page closes); Refresh asks main again', async () => {
    const later: EnvironmentsSummary = { at: new Date().toISOString(), rows: ROWS.map((r) => (r.id === 'lab' ? { ...r, health: 'ok', live: 'connected', failedLastHour: 0, failedLastDay: 0, oldestWaitingMs: null, haltedSchedules: 0 } : r)) };
    const { wrapper, controller, asked } = page([{ at: new Date().toISOString(), rows: ROWS }, later]);
    await flushPromises();
    expect(asked()).toBe(1);
    await wrapper.get('[data-testid="all-refresh"]').trigger('click');
    await flushPromises();
    expect(asked()).toBe(2);
    expect(wrapper.get('[data-testid="all-row-lab"]').findAll('td')[0]!.text()).toBe('Healthy');
    await wrapper.get('[data-testid="all-row-prd"] th button').trigger('click');
    expect(controller.state.activeId).toBe('prd');
    expect(controller.state.allOpen).toBe(false);
    wrapper.unmount();
  });

  it('refreshes on its own while shown, and stops once closed', async () => {
    const { wrapper, asked } = page([{ at: new Date().toISOString(), rows: ROWS }], 30);
    await expect.poll(asked).toBeGreaterThanOrEqual(3);
    wrapper.unmount();
    const after = asked();
    await new Promise((r) => setTimeout(r, 120));
    expect(asked()).toBe(after);
  });

  it('says waits as people do', () => {
    expect([undefined, null, 45_000, 7 * 60_000, 185 * 60_000, 52 * 3_600_000].map(formatWait)).toEqual(['—', 'none', '45 s', '7 min', '3 h 5 min', '2 d 4 h']);
  });
});
