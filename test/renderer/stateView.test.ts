import { afterEach, describe, expect, it, vi } from 'vitest';
import { h, nextTick, ref, shallowRef, type VNode } from 'vue';
import { mount, type VueWrapper } from '@vue/test-utils';
import StateView from '../../src/renderer/components/StateView.vue';
import type { Resource } from '../../src/renderer/composables/useResource.js';

/** A resource in a given state, without a loader behind it. */
function resourceOf<T>(state: { data?: T; error?: string; status?: number; loading?: boolean; initial?: boolean } = {}): Resource<T> {
  return {
    data: shallowRef<T | undefined>(state.data),
    error: ref<string | null>(state.error ?? null),
    errorStatus: ref<number | null>(state.status ?? null),
    loading: ref(state.loading ?? false),
    initial: ref(state.initial ?? false),
    reload: vi.fn(async () => {}),
  };
}

let mounted: VueWrapper | null = null;
afterEach(() => {
  mounted?.unmount();
  mounted = null;
});
function show<T>(resource: Resource<T>, props: { empty?: boolean; emptyText?: string; label?: string } = {}, slots: Record<string, (scope: { error: string; status: number | null }) => VNode> = {}) {
  mounted = mount(StateView, { props: { resource, ...props }, slots: { default: () => h('p', { class: 'content' }, 'the data'), ...slots } });
  return mounted;
}

describe('StateView', () => {
  it('shows the spinner only while the first answer is awaited, and stays busy during a reload', async () => {
    const r = resourceOf<number[]>({ loading: true, initial: true });
    const w = show(r, { label: 'queues' });
    expect(w.find('.state--loading').text()).toBe('Loading queues…');
    expect(w.attributes('aria-busy')).toBe('true');
    r.data.value = [1];
    r.initial.value = false;
    await nextTick();
    expect(w.find('.content').exists()).toBe(true);
    expect(w.attributes('aria-busy')).toBe('true');
    r.loading.value = false;
    await nextTick();
    expect(w.attributes('aria-busy')).toBe('false');
  });

  it('an error shows the message and Retry reloads the resource', async () => {
    const r = resourceOf<number[]>({ data: [1], error: 'boom', status: 500 });
    const w = show(r, { label: 'queues' });
    expect(w.find('[role="alert"]').text()).toContain('Could not load queues');
    expect(w.find('[role="alert"]').text()).toContain('boom');
    expect(w.find('.content').exists()).toBe(false);
    await w.find('[role="alert"] button').trigger('click');
    expect(r.reload).toHaveBeenCalledTimes(1);
  });

  it('the error slot replaces the error block and gets the status', () => {
    const r = resourceOf<string>({ error: 'Not Found', status: 404 });
    const w = show(r, {}, { error: (p) => h('p', { class: 'custom' }, `${p.status} ${p.error}`) });
    expect(w.find('.custom').text()).toBe('404 Not Found');
    expect(w.find('.state--error').exists()).toBe(false);
  });

  it('an empty array or null data is empty by default; other data is shown', () => {
    expect(show(resourceOf<number[]>({ data: [] }), { emptyText: 'No queues.' }).find('.state--empty').text()).toBe('No queues.');
    expect(show(resourceOf<number[] | null>({ data: null })).find('.state--empty').text()).toBe('Nothing to show yet.');
    expect(show(resourceOf<number[]>({ data: [1] })).find('.content').exists()).toBe(true);
    expect(show(resourceOf<{ items: number[] }>({ data: { items: [] } })).find('.content').exists()).toBe(true);
  });

  it('an explicit empty overrides the default, both ways', () => {
    expect(show(resourceOf<{ items: number[] }>({ data: { items: [] } }), { empty: true }).find('.state--empty').exists()).toBe(true);
    expect(show(resourceOf<number[]>({ data: [] }), { empty: false }).find('.content').exists()).toBe(true);
  });
});
