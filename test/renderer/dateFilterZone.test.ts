import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { VueWrapper } from '@vue/test-utils';
import { isoToZonedInput, zonedInputToIso } from '../../src/renderer/format.js';
import { createFakePlatform } from './fakePlatform.js';
import { serveFixtures } from './fixtures.js';
import { mountDashboard, settle } from './harness.js';

const SIGNED_IN = { username: 'admin', canManage: false, token: 'jwt', expiresAt: '2099-01-01T00:00:00Z' };

// The browser runs in Los Angeles; the viewer picks other zones on the page.
const savedTz = process.env.TZ;
beforeAll(() => {
  process.env.TZ = 'America/Los_Angeles';
});
afterAll(() => {
  if (savedTz === undefined) delete process.env.TZ;
  else process.env.TZ = savedTz;
});
let mounted: VueWrapper | null = null;
afterEach(() => {
  mounted?.unmount();
  mounted = null;
  document.body.innerHTML = '';
  window.localStorage.clear();
});

describe('task-list date filters in the viewer time zone', () => {
  it('a typed time is read in the chosen zone (not the browser zone), sent as that UTC instant, shown back and named', async () => {
    window.localStorage.setItem('svc-monitoring.timeZone', 'Asia/Tokyo');
    const platform = createFakePlatform({ session: SIGNED_IN });
    serveFixtures(platform);
    const { wrapper, router } = await mountDashboard(platform, '/tasks');
    mounted = wrapper;

    expect(wrapper.find('input[name="createdAfter"]').element.closest('label')!.textContent).toContain('Asia/Tokyo');
    await wrapper.find('input[name="createdAfter"]').setValue('2026-11-23T09:00');
    await wrapper.find('input[name="createdAfter"]').trigger('change');
    await settle();
    // 09:00 in Tokyo (UTC+9) is 00:00 UTC; in the browser's Los Angeles it would have been 17:00 UTC.
    expect(router.currentRoute.value.query.createdAfter).toBe('2026-11-23T00:00:00.000Z');
    expect(platform.callsOf('tasks.list').at(-1)).toMatchObject({ createdAfter: '2026-11-23T00:00:00.000Z' });
    expect((wrapper.find('input[name="createdAfter"]').element as HTMLInputElement).value).toBe('2026-11-23T09:00');

    // Switching the page's zone to UTC shows the same instant as UTC wall time; the filter does not move.
    await wrapper.find('[data-testid="tz-select"]').setValue('UTC');
    await settle();
    expect((wrapper.find('input[name="createdAfter"]').element as HTMLInputElement).value).toBe('2026-11-23T00:00');
    expect(wrapper.find('input[name="createdAfter"]').element.closest('label')!.textContent).toContain('UTC');
    expect(router.currentRoute.value.query.createdAfter).toBe('2026-11-23T00:00:00.000Z');

    await wrapper.find('input[name="createdBefore"]').setValue('2026-11-23T18:30');
    await wrapper.find('input[name="createdBefore"]').trigger('change');
    await settle();
    expect(platform.callsOf('tasks.list').at(-1)).toMatchObject({ createdAfter: '2026-11-23T00:00:00.000Z', createdBefore: '2026-11-23T18:30:00.000Z' });

    // Clearing the field removes the filter.
    await wrapper.find('input[name="createdBefore"]').setValue('');
    await wrapper.find('input[name="createdBefore"]').trigger('change');
    await settle();
    expect(router.currentRoute.value.query.createdBefore).toBeUndefined();
  });

  it('Local means the browser zone, named as such', async () => {
    const platform = createFakePlatform({ session: SIGNED_IN });
    serveFixtures(platform);
    const { wrapper, router } = await mountDashboard(platform, '/tasks?createdAfter=2026-11-23T00:00:00.000Z');
    mounted = wrapper;
    expect((wrapper.find('input[name="createdAfter"]').element as HTMLInputElement).value).toBe('2026-11-22T16:00');
    expect(wrapper.find('input[name="createdAfter"]').element.closest('label')!.textContent).toContain('America/Los_Angeles');
    await wrapper.find('input[name="createdAfter"]').setValue('2026-11-22T20:00');
    await wrapper.find('input[name="createdAfter"]').trigger('change');
    await settle();
    expect(router.currentRoute.value.query.createdAfter).toBe('2026-11-23T04:00:00.000Z');
  });

  it('daylight-saving edges: a skipped wall time moves past the jump, a repeated one takes its first occurrence', () => {
    // Los Angeles 2026-03-08: 02:00 PST jumps to 03:00 PDT; 2026-11-01: 02:00 PDT falls back to 01:00 PST.
    expect(zonedInputToIso('2026-03-08T02:30', 'America/Los_Angeles')).toBe('2026-03-08T10:30:00.000Z');
    expect(zonedInputToIso('2026-03-08T03:30', 'America/Los_Angeles')).toBe('2026-03-08T10:30:00.000Z');
    expect(zonedInputToIso('2026-11-01T01:30', 'America/Los_Angeles')).toBe('2026-11-01T08:30:00.000Z');
    expect(zonedInputToIso('2026-11-01T03:00', 'America/Los_Angeles')).toBe('2026-11-01T11:00:00.000Z');
    expect(zonedInputToIso('2026-07-01T12:00', 'Asia/Kolkata')).toBe('2026-07-01T06:30:00.000Z');
    expect(isoToZonedInput('2026-11-01T09:30:00.000Z', 'America/Los_Angeles')).toBe('2026-11-01T01:30');
    expect(isoToZonedInput('2026-07-01T06:30:00.000Z', 'UTC')).toBe('2026-07-01T06:30');
    expect(zonedInputToIso('not a date', 'UTC')).toBeUndefined();
    expect(zonedInputToIso('', 'UTC')).toBeUndefined();
  });
});
