import { createApp, defineComponent, h } from 'vue';
import { createPinia, setActivePinia, type Pinia } from 'pinia';
import { createMemoryHistory } from 'vue-router';
import { mount, flushPromises, type VueWrapper } from '@vue/test-utils';
import { PLATFORM_KEY } from '../../src/renderer/platform/inject.js';
import type { Platform } from '../../src/renderer/platform/Platform.js';
import { createAppRouter } from '../../src/renderer/app/router.js';
import App from '../../src/renderer/app/App.vue';

/** A Pinia bound to an app that provides the platform (how stores find it). */
export function piniaWith(platform: Platform): Pinia {
  const app = createApp({ render: () => null });
  app.provide(PLATFORM_KEY, platform);
  const pinia = createPinia();
  app.use(pinia);
  setActivePinia(pinia);
  return pinia;
}

/** Mounts the whole dashboard (App + router on memory history) over a platform, at `path`. */
export async function mountDashboard(platform: Platform, path: string): Promise<{ wrapper: VueWrapper; router: ReturnType<typeof createAppRouter>; pinia: Pinia }> {
  const pinia = createPinia();
  const router = createAppRouter(createMemoryHistory('/svc-monitoring/'), pinia);
  const Root = defineComponent({ render: () => h(App) });
  const wrapper = mount(Root, {
    attachTo: document.body,
    global: {
      plugins: [pinia, router],
      provide: { [PLATFORM_KEY as symbol]: platform },
      stubs: { ChartPanel: { props: ['option', 'label', 'height'], template: '<div class="chart-stub" role="img" :aria-label="label" />' } },
    },
  });
  await router.push(path);
  await router.isReady();
  await settle();
  return { wrapper, router, pinia };
}

export async function settle(): Promise<void> {
  for (let i = 0; i < 6; i += 1) {
    await flushPromises();
    await new Promise((r) => setTimeout(r, 0));
  }
}
