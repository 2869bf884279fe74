import { afterEach, describe, expect, it, vi } from 'vitest';
import type { VueWrapper } from '@vue/test-utils';
import { createFakePlatform } from './fakePlatform.js';
import { FAILED_ID, serveFixtures } from './fixtures.js';
import { mountDashboard, settle } from './harness.js';

const SIGNED_IN = { username: 'admin', canManage: false, token: 'jwt', expiresAt: '2099-01-01T00:00:00Z' };
const GROUP = {
  taskType: 'Demo.Billing.SendInvoice',
  fingerprint: 'Error: SMTP # from mail-#.example for invoice "…"',
  count: 12,
  firstSeenUtc: '2026-11-23T08:00:00Z',
  lastSeenUtc: '2026-11-23T09:00:00Z',
  sampleTaskId: FAILED_ID,
};
let mounted: VueWrapper | null = null;
afterEach(() => {
  mounted?.unmount();
  mounted = null;
  document.body.innerHTML = '';
});

describe.each([
  ['web dashboard', false],
  ['desktop console', true],
])('failure groups in the %s', (_name, desktop) => {
  it("a group's link lists the tasks of its type failing with its fingerprint; the filter shows and clears", async () => {
    const platform = createFakePlatform({ session: SIGNED_IN, manage: desktop, hostChrome: desktop });
    serveFixtures(platform);
    platform.handle('statistics.failureGroups', (p) => ({ range: p.range ?? 'Today', groups: [GROUP] }));
    const { wrapper, router } = await mountDashboard(platform, '/failures');
    mounted = wrapper;
    await settle();
    const link = wrapper.find('[data-testid="failure-group"] th a');
    expect(link.attributes('aria-label')).toBe('Tasks of SendInvoice failing with this error');
    const href = new URL(link.attributes('href')!, 'http://host');
    expect(Object.fromEntries(href.searchParams)).toEqual({ taskType: GROUP.taskType, failureFingerprint: GROUP.fingerprint });
    await link.trigger('click');
    await vi.waitFor(() => expect(router.currentRoute.value.name).toBe('tasks'), { timeout: 5000 });
    await settle();
    expect(router.currentRoute.value.query).toEqual({ taskType: GROUP.taskType, failureFingerprint: GROUP.fingerprint });
    expect(platform.callsOf('tasks.list').at(-1)).toMatchObject({ taskType: GROUP.taskType, failureFingerprint: GROUP.fingerprint });
    const chip = wrapper.find('[data-testid="fingerprint-filter"]');
    expect(chip.text()).toContain(GROUP.fingerprint);
    await chip.find('button').trigger('click');
    await settle();
    expect(router.currentRoute.value.query).toEqual({ taskType: GROUP.taskType });
    expect(platform.callsOf('tasks.list').at(-1)).not.toHaveProperty('failureFingerprint', GROUP.fingerprint);
    expect(wrapper.find('[data-testid="fingerprint-filter"]').exists()).toBe(false);
  });
});
