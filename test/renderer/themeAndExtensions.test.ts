import { afterEach, describe, expect, it } from 'vitest';
import { defineComponent, h } from 'vue';
import { createPinia } from 'pinia';
import { createMemoryHistory } from 'vue-router';
import { mount } from '@vue/test-utils';
import App from '../../src/renderer/app/App.vue';
import { EXTENSIONS_KEY } from '../../src/renderer/app/extensions.js';
import { createAppRouter } from '../../src/renderer/app/router.js';
import { PLATFORM_KEY } from '../../src/renderer/platform/inject.js';
import { useThemeStore } from '../../src/renderer/stores/theme.js';
import { createFakePlatform } from './fakePlatform.js';
import { serveFixtures } from './fixtures.js';
import { mountDashboard, piniaWith, settle } from './harness.js';

afterEach(() => {
  window.localStorage.clear();
  document.body.innerHTML = '';
});

describe('theme', () => {
  it('follows the system until chosen; the choice is remembered and applied to <html>', () => {
    piniaWith(createFakePlatform());
    const theme = useThemeStore();
    expect(theme.preference).toBe('system');
    theme.set('dark');
    expect(document.documentElement.dataset.theme).toBe('dark');
    expect(window.localStorage.getItem('svc-monitoring.theme')).toBe('dark');
    theme.set('light');
    expect(document.documentElement.dataset.theme).toBe('light');
    theme.set('system');
    expect(window.localStorage.getItem('svc-monitoring.theme')).toBeNull();
  });
});

describe('extension points (used by the desktop build)', () => {
  it('adds a banner, a sidebar block, a page and its navigation entry without touching the pages', async () => {
    const platform = createFakePlatform({ session: { username: 'admin', canManage: false, token: 't' } });
    serveFixtures(platform);
    const pinia = createPinia();
    const Inbox = defineComponent({ render: () => h('h1', { id: 'page-title' }, 'Inbox page') });
    const router = createAppRouter(createMemoryHistory('/'), pinia, [{ path: '/inbox', name: 'inbox', component: Inbox }]);
    const wrapper = mount(defineComponent({ render: () => h(App) }), {
      attachTo: document.body,
      global: {
        plugins: [pinia, router],
        provide: {
          [PLATFORM_KEY as symbol]: platform,
          [EXTENSIONS_KEY as symbol]: {
            banner: defineComponent({ render: () => h('div', { 'data-testid': 'banner' }, 'PRODUCTION') }),
            sidebarTop: defineComponent({ render: () => h('div', { 'data-testid': 'envs' }, 'environments') }),
            navItems: [{ name: 'inbox', label: 'Inbox', icon: '✉' }],
          },
        },
        stubs: { ChartPanel: true },
      },
    });
    await router.push('/inbox');
    await settle();
    expect(wrapper.find('[data-testid="banner"]').text()).toBe('PRODUCTION');
    expect(wrapper.find('[data-testid="envs"]').exists()).toBe(true);
    expect(wrapper.find('#page-title').text()).toBe('Inbox page');
    expect(wrapper.findAll('.nav-link').map((a) => a.text())).toContain('✉Inbox');
    await router.push('/nowhere');
    await settle();
    expect(wrapper.find('#page-title').text()).toBe('Page not found');
    wrapper.unmount();
  });
});

describe('inside a host with its own chrome (the desktop console)', () => {
  it('shows the navigation as icons named by their labels, without a second brand or theme selector', async () => {
    const platform = createFakePlatform({ session: { username: 'admin', canManage: false, token: 't' }, hostChrome: true });
    serveFixtures(platform);
    const { wrapper, router } = await mountDashboard(platform, '/');
    expect(wrapper.find('.shell').classes()).toContain('shell--rail');
    expect(wrapper.find('.sidebar .brand').exists()).toBe(false);
    expect(wrapper.find('[data-testid="theme-select"]').exists()).toBe(false);
    const links = wrapper.findAll('.nav-link');
    expect(links.map((a) => a.attributes('aria-label'))).toEqual(['Overview', 'Tasks', 'Queues', 'Failures', 'Statistics', 'Live feed']);
    expect(links.map((a) => a.attributes('title'))).toContain('Tasks (g t)');
    // Only the icon is drawn: no label text next to it.
    expect(links.map((a) => a.text())).toEqual(['▦', '☰', '⇶', '⚠', '◔', '⚡']);
    await links[1]!.trigger('click');
    await expect.poll(() => router.currentRoute.value.name, { timeout: 5_000 }).toBe('tasks');
    wrapper.unmount();
  });

  it('keeps the labelled navigation, brand and theme selector in the web dashboard', async () => {
    const platform = createFakePlatform({ session: { username: 'admin', canManage: false, token: 't' } });
    serveFixtures(platform);
    const { wrapper } = await mountDashboard(platform, '/');
    expect(wrapper.find('.shell').classes()).not.toContain('shell--rail');
    expect(wrapper.find('.sidebar .brand').text()).toContain('Svc Monitor');
    expect(wrapper.find('[data-testid="theme-select"]').exists()).toBe(true);
    expect(wrapper.findAll('.nav-link').map((a) => a.text())).toContain('☰Tasks');
    expect(wrapper.find('.nav-link').attributes('aria-label')).toBeUndefined();
    wrapper.unmount();
  });
});
