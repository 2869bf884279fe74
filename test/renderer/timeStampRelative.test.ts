import { afterEach, describe, expect, it, vi } from 'vitest';
import { mount, type VueWrapper } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import TimeStamp from '../../src/renderer/components/TimeStamp.vue';

const mounted: VueWrapper[] = [];
afterEach(() => {
  for (const w of mounted.splice(0)) w.unmount();
  vi.useRealTimers();
});

describe('TimeStamp relative', () => {
  it('says "just now" for a row drawn between ticks of the shared clock, not "in a few seconds"', () => {
    vi.useFakeTimers({ now: new Date('2026-11-23T10:00:00.000Z') });
    const pinia = createPinia();
    setActivePinia(pinia);
    // The first stamp starts the shared clock (it ticks every 15 s).
    mounted.push(mount(TimeStamp, { props: { value: '2026-11-23T09:59:00.000Z', relative: true }, global: { plugins: [pinia] } }));
    // 8 s later, before the next tick, a new row arrives created at this very moment.
    vi.setSystemTime(new Date('2026-11-23T10:00:08.000Z'));
    const fresh = mount(TimeStamp, { props: { value: '2026-11-23T10:00:08.000Z', relative: true }, global: { plugins: [pinia] } });
    mounted.push(fresh);
    expect(fresh.text()).toBe('just now');
  });
});
