import { afterEach, describe, expect, it, vi } from 'vitest';
import { flushPromises, type VueWrapper } from '@vue/test-utils';
import { ApiError } from '../../src/renderer/platform/ApiError.js';
import { useLiveStore } from '../../src/renderer/stores/live.js';
import { createFakePlatform } from './fakePlatform.js';
import { FAILED_DETAIL, FAILED_ID, SCHEDULE_ID, serveFixtures } from './fixtures.js';
import { mountDashboard, settle } from './harness.js';

const SIGNED_IN = { username: 'admin', canManage: false, token: 'jwt', expiresAt: '2099-01-01T00:00:00Z' };
let mounted: VueWrapper | null = null;
afterEach(() => {
  mounted?.unmount();
  mounted = null;
  document.body.innerHTML = '';
});

async function open(platform: ReturnType<typeof createFakePlatform>, path: string) {
  const result = await mountDashboard(platform, path);
  mounted = result.wrapper;
  return result;
}

describe('dashboard: authentication', () => {
  it('a private page without a session goes to login, and signing in returns to it', async () => {
    const platform = createFakePlatform();
    serveFixtures(platform);
    platform.handle('auth.login', (p) => ({ token: 'jwt', expiresAt: '2099-01-01T00:00:00Z', username: p.username, canManage: false }));
    const { wrapper, router } = await open(platform, '/tasks?statuses=Failed');
    expect(router.currentRoute.value.name).toBe('login');
    expect(router.currentRoute.value.query.redirect).toBe('/tasks?statuses=Failed');
    await wrapper.find('input[name="username"]').setValue('admin');
    await wrapper.find('input[name="password"]').setValue('admin');
    await wrapper.find('form').trigger('submit');
    await settle();
    expect(wrapper.find('[data-testid="login-error"]').exists() ? wrapper.find('[data-testid="login-error"]').text() : '').toBe('');
    // The tasks page is a lazily loaded chunk: on a busy machine its first import can take
    // longer than waitFor's one-second default.
    await vi.waitFor(() => expect(router.currentRoute.value.fullPath).toBe('/tasks?statuses=Failed'), { timeout: 10_000 });
    await vi.waitFor(() => expect(platform.callsOf('tasks.list')[0]).toMatchObject({ statuses: ['Failed'] }), { timeout: 10_000 });
  });

  it('bad credentials and the rate limit are explained', async () => {
    const platform = createFakePlatform();
    let attempts = 0;
    platform.handle('auth.login', () => {
      attempts += 1;
      if (attempts < 2) throw new ApiError(401, 'Invalid credentials');
      throw new ApiError(429, 'Too Many Requests', { retryAfterSeconds: 840 });
    });
    const { wrapper } = await open(platform, '/login');
    await wrapper.find('input[name="username"]').setValue('admin');
    await wrapper.find('input[name="password"]').setValue('nope');
    await wrapper.find('form').trigger('submit');
    await settle();
    expect(wrapper.find('[data-testid="login-error"]').text()).toBe('Wrong username or password.');
    await wrapper.find('input[name="password"]').setValue('nope');
    await wrapper.find('form').trigger('submit');
    await settle();
    expect(wrapper.find('[data-testid="login-error"]').text()).toContain('Too many sign-in attempts. Try again in 14 minutes.');
  });

  it('requireAuthentication=false: no login at all', async () => {
    const platform = createFakePlatform({ config: { requireAuthentication: false } });
    serveFixtures(platform);
    const { wrapper, router } = await open(platform, '/login');
    expect(router.currentRoute.value.name).toBe('overview');
    expect(wrapper.find('[data-testid="auth-off"]').exists()).toBe(true);
    expect(wrapper.find('[data-testid="logout"]').exists()).toBe(false);
    expect(platform.callsOf('auth.login')).toHaveLength(0);
  });

  it('a 401 on a page sends the user to login with a message', async () => {
    const platform = createFakePlatform({ session: SIGNED_IN });
    serveFixtures(platform);
    platform.handle('queues.list', () => {
      throw new ApiError(401, 'Unauthorized');
    });
    const { wrapper, router } = await open(platform, '/queues');
    await settle();
    expect(router.currentRoute.value.name).toBe('login');
    expect(router.currentRoute.value.query.redirect).toBe('/queues');
    expect(wrapper.find('[data-testid="login-notice"]').text()).toMatch(/session has expired/);
    expect(platform.stored).toBeNull();
  });

  it('sign out clears the session and shows login', async () => {
    const platform = createFakePlatform({ session: SIGNED_IN });
    serveFixtures(platform);
    const { wrapper, router } = await open(platform, '/');
    expect(wrapper.find('[data-testid="current-user"]').text()).toContain('admin');
    await wrapper.find('[data-testid="logout"]').trigger('click');
    await settle();
    expect(router.currentRoute.value.name).toBe('login');
    expect(platform.stored).toBeNull();
  });

  it('the magic page exchanges the fragment token and lands on the overview', async () => {
    const platform = createFakePlatform();
    serveFixtures(platform);
    platform.handle('auth.magic', (p) => ({ token: `jwt-for-${p.token}`, expiresAt: '2099-01-01T00:00:00Z', username: 'magic' }));
    window.history.replaceState(null, '', '/svc-monitoring/magic#token=s3cret');
    const { router } = await open(platform, '/magic');
    await settle();
    expect(platform.callsOf('auth.magic')).toEqual([{ token: 's3cret' }]);
    expect(window.location.href).not.toContain('s3cret');
    expect(router.currentRoute.value.name).toBe('overview');
    expect(platform.stored?.token).toBe('jwt-for-s3cret');
    expect(platform.stored?.canManage).toBe(false);
  });
});

describe('dashboard: pages', () => {
  it('overview shows the API numbers and links the halted schedule', async () => {
    const platform = createFakePlatform({ session: SIGNED_IN });
    serveFixtures(platform);
    const { wrapper } = await open(platform, '/');
    await settle();
    const text = (id: string) => wrapper.find(`[data-testid="${id}"]`).text();
    expect(text('kpi-today')).toBe((1234).toLocaleString());
    expect(text('kpi-week')).toBe((5678).toLocaleString());
    expect(text('kpi-success')).toBe(`${(93.25).toLocaleString()}%`);
    expect(text('kpi-failed')).toBe('17');
    expect(text('kpi-throttled')).toBe('2');
    expect(text('halted-count')).toBe('1');
    expect(wrapper.find('[data-testid="halted-link"]').text()).toBe('hourly-report');
    expect(wrapper.find('[data-testid="recent-activity"]').text()).toContain('AlwaysFails');
  });

  it('the range selector asks the overview for that range and keeps it in the URL', async () => {
    const platform = createFakePlatform({ session: SIGNED_IN });
    serveFixtures(platform);
    const { wrapper, router } = await open(platform, '/');
    const week = wrapper.findAll('[role="radio"]').find((b) => b.text() === 'Week');
    await week?.trigger('click');
    await settle();
    expect(router.currentRoute.value.query.range).toBe('Week');
    expect(platform.callsOf('dashboard.overview').at(-1)).toEqual({ range: 'Week', timeZone: 'UTC' });
  });

  it('task filters, sorting and paging live in the URL; back restores the previous filter', async () => {
    const platform = createFakePlatform({ session: SIGNED_IN });
    serveFixtures(platform);
    const { wrapper, router } = await open(platform, '/tasks');
    expect(wrapper.findAll('[data-task-id]')).toHaveLength(2);
    await wrapper.find('input[name="status-Failed"]').trigger('change');
    await settle();
    expect(router.currentRoute.value.query.statuses).toEqual(['Failed']);
    expect(platform.callsOf('tasks.list').at(-1)).toMatchObject({ statuses: ['Failed'], page: 1 });
    expect(wrapper.findAll('[data-task-id]')).toHaveLength(1);

    await wrapper.find('button[data-sort="ExecutionTimeMs"]').trigger('click');
    await settle();
    expect(router.currentRoute.value.query).toMatchObject({ statuses: ['Failed'], sortBy: 'ExecutionTimeMs' });

    await wrapper.find('select[name="isRecurring"]').setValue('false');
    await settle();
    expect(platform.callsOf('tasks.list').at(-1)).toMatchObject({ isRecurring: false, sortBy: 'ExecutionTimeMs' });

    router.back();
    await settle();
    expect(router.currentRoute.value.query.isRecurring).toBeUndefined();
    expect(platform.callsOf('tasks.list').at(-1)).toMatchObject({ statuses: ['Failed'], sortBy: 'ExecutionTimeMs' });
    expect(platform.callsOf('tasks.list').at(-1)).not.toHaveProperty('isRecurring', false);
  });

  it('paging and page size', async () => {
    const platform = createFakePlatform({ session: SIGNED_IN });
    serveFixtures(platform);
    const { wrapper, router } = await open(platform, '/tasks');
    await wrapper.find('button[aria-label="Next page"]').trigger('click');
    await settle();
    expect(router.currentRoute.value.query.page).toBe('2');
    await wrapper.find('select[aria-label="Rows per page"]').setValue('50');
    await settle();
    expect(router.currentRoute.value.query).toEqual({ pageSize: '50' });
    expect(platform.callsOf('tasks.list').at(-1)).toMatchObject({ page: 1, pageSize: 50 });
  });

  it('failed task detail: exception, pretty request JSON, timeline, logs with levels and expandable exception', async () => {
    const platform = createFakePlatform({ session: SIGNED_IN });
    serveFixtures(platform);
    const { wrapper } = await open(platform, `/tasks/${FAILED_ID}`);
    await settle();
    expect(wrapper.find('[data-testid="task-exception"]').text()).toContain('card declined');
    expect(wrapper.find('[data-testid="request-json"]').text()).toBe(JSON.stringify({ invoiceId: 7, lines: [1, 2] }, null, 2));
    expect(wrapper.find('[data-testid="task-fields"]').text()).toContain('Demo.Billing.AlwaysFailsHandler');
    expect(wrapper.findAll('[data-testid="status-timeline"] li')).toHaveLength(3);
    const logs = wrapper.findAll('[data-testid="execution-logs"] [data-level]');
    expect(logs.map((l) => l.attributes('data-level'))).toEqual(['Information', 'Error']);
    expect(logs[1]?.classes()).toContain('log--error');
    expect(logs[1]?.find('details pre').text()).toContain('card declined');
    expect(wrapper.find('[data-testid="occurrences"]').exists()).toBe(false);
  });

  it('task detail: the trace id of the dispatch with a copy button, and no trace row without one', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const platform = createFakePlatform({ session: SIGNED_IN });
    serveFixtures(platform);
    platform.handle('tasks.get', () => ({ ...FAILED_DETAIL, traceId }));
    const { wrapper } = await open(platform, `/tasks/${FAILED_ID}`);
    await settle();
    const fields = wrapper.find('[data-testid="task-fields"]');
    expect(fields.text()).toContain(`Trace id${traceId}`);
    expect(fields.find('button[aria-label="Copy trace id"]').exists()).toBe(true);

    const plain = createFakePlatform({ session: SIGNED_IN });
    serveFixtures(plain);
    const other = await open(plain, `/tasks/${FAILED_ID}`);
    await settle();
    expect(other.wrapper.find('[data-testid="task-fields"]').text()).not.toContain('Trace id');
  });

  it('schedule detail: halt block and occurrences paged with the non-terminal filter', async () => {
    const platform = createFakePlatform({ session: SIGNED_IN });
    serveFixtures(platform);
    const { wrapper } = await open(platform, `/tasks/${SCHEDULE_ID}`);
    await settle();
    expect(wrapper.find('[data-testid="halt-block"]').text()).toContain('250');
    expect(platform.callsOf('tasks.occurrences').at(-1)).toEqual({ id: SCHEDULE_ID, nonTerminalOnly: false, skip: 0, take: 20 });
    await wrapper.find('input[name="nonTerminalOnly"]').setValue(true);
    await settle();
    expect(platform.callsOf('tasks.occurrences').at(-1)).toEqual({ id: SCHEDULE_ID, nonTerminalOnly: true, skip: 0, take: 20 });
    await wrapper.find('[data-testid="occurrences"] button[aria-label="Next page"]').trigger('click');
    await settle();
    expect(platform.callsOf('tasks.occurrences').at(-1)).toMatchObject({ skip: 20 });
    expect(wrapper.find('[data-testid="occurrences"] a').attributes('href')).toContain('/tasks/d0000000-0000-4000-8000-000000000001');
  });

  it('no management buttons on the web platform, even for an operator on a host with management on', async () => {
    const operator = { ...SIGNED_IN, canManage: true };
    const web = createFakePlatform({ session: operator, config: { managementEnabled: true }, manage: false });
    serveFixtures(web);
    const a = await open(web, `/tasks/${SCHEDULE_ID}`);
    await settle();
    expect(a.wrapper.find('[aria-label="Management actions"]').exists()).toBe(false);
    expect(a.wrapper.findAll('button').map((b) => b.text())).not.toContain('Resume');
    a.wrapper.unmount();
    mounted = null;

    const desktop = createFakePlatform({ session: operator, config: { managementEnabled: true }, manage: true });
    serveFixtures(desktop);
    const b = await open(desktop, `/tasks/${SCHEDULE_ID}`);
    await settle();
    expect(b.wrapper.find('[aria-label="Management actions"]').text()).toContain('Resume');
  });

  it('an API error shows an error state with retry', async () => {
    const platform = createFakePlatform({ session: SIGNED_IN });
    serveFixtures(platform);
    let fail = true;
    platform.handle('queues.list', () => {
      if (fail) throw new ApiError(500, 'boom');
      return [];
    });
    const { wrapper } = await open(platform, '/queues');
    await settle();
    expect(wrapper.find('[role="alert"]').text()).toContain('boom');
    fail = false;
    await wrapper.find('[role="alert"] button').trigger('click');
    await settle();
    expect(wrapper.text()).toContain('No queues have tasks yet.');
  });

  it('an unknown task id says so instead of an error', async () => {
    const platform = createFakePlatform({ session: SIGNED_IN });
    serveFixtures(platform);
    platform.handle('tasks.get', () => {
      throw new ApiError(404, 'Not Found');
    });
    const { wrapper } = await open(platform, '/tasks/nope');
    await settle();
    expect(wrapper.find('[role="alert"]').text()).toBe('No task with id nope.');
    expect(wrapper.find('.state--error').exists()).toBe(false);
  });

  it('statistics: execution times table sorts by a clicked column', async () => {
    const platform = createFakePlatform({ session: SIGNED_IN });
    serveFixtures(platform);
    const { wrapper } = await open(platform, '/statistics');
    await settle();
    const rows = () => wrapper.findAll('[data-testid="execution-times"] tbody th').map((r) => r.text());
    expect(rows()).toEqual(['Slow', 'SendInvoice']);
    const runsHeader = wrapper.findAll('[data-testid="execution-times"] thead button').find((b) => b.text().startsWith('Completed runs'));
    await runsHeader?.trigger('click');
    expect(rows()).toEqual(['SendInvoice', 'Slow']);
  });
});

describe('dashboard: live', () => {
  it('an event on the hub refreshes the open page after eventDebounceMs and shows in the live feed', async () => {
    const platform = createFakePlatform({ session: SIGNED_IN, config: { eventDebounceMs: 50 } });
    serveFixtures(platform);
    const { wrapper, router, pinia } = await open(platform, '/tasks');
    platform.live.setState('connected');
    await settle();
    const before = platform.callsOf('tasks.list').length;
    const live = useLiveStore(pinia);
    const generation = live.version;
    // The debounce window runs on fake timeouts: it closes exactly when the test says so.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      // The first event opens a 50 ms window; the second, 30 ms later, falls inside it.
      platform.live.emit({ kind: 'Completed', taskId: FAILED_ID, eventDateUtc: new Date().toISOString(), severity: 'Information', taskType: 'Demo.X.Y', message: 'done' });
      vi.advanceTimersByTime(30);
      platform.live.emit({ kind: 'Started', taskId: FAILED_ID, eventDateUtc: new Date().toISOString(), severity: 'Information', taskType: 'Demo.X.Y', message: 'go' });
      vi.advanceTimersByTime(19);
      await flushPromises();
      expect(live.version).toBe(generation);
      expect(platform.callsOf('tasks.list').length).toBe(before);
      vi.advanceTimersByTime(1);
      await flushPromises();
      expect(live.version).toBe(generation + 1);
      expect(platform.callsOf('tasks.list').length).toBe(before + 1);
      // One window for both events: no second invalidation follows (not at 80 ms, nor later).
      vi.advanceTimersByTime(1_000);
      await flushPromises();
      expect(live.version).toBe(generation + 1);
    } finally {
      vi.useRealTimers();
    }
    await settle();
    expect(platform.callsOf('tasks.list').length).toBe(before + 1);
    await router.push('/live');
    await settle();
    expect(wrapper.findAll('[data-testid="live-feed"] li')).toHaveLength(2);
    expect(wrapper.find('[data-testid="connection-indicator"]').attributes('data-state')).toBe('connected');
  });

  it('standalone (no hub): the indicator says polling with its interval', async () => {
    const platform = createFakePlatform({ session: SIGNED_IN });
    serveFixtures(platform);
    const { wrapper } = await open(platform, '/');
    platform.live.setState('unavailable', '404');
    await settle();
    const indicator = wrapper.find('[data-testid="connection-indicator"]');
    expect(indicator.text()).toContain('Polling every 5 s');
    expect(wrapper.find('[data-testid="poll-countdown"]').exists()).toBe(true);
  });
});
