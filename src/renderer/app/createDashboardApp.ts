import { createApp, type App as VueApp } from 'vue';
import { createPinia, type Pinia } from 'pinia';
import type { Router, RouterHistory } from 'vue-router';
import App from './App.vue';
import { PLATFORM_KEY } from '../platform/inject.js';
import type { Platform } from '../platform/Platform.js';
import { createAppRouter } from './router.js';
import { EXTENSIONS_KEY, type DashboardExtensions } from './extensions.js';
import '../styles/app.css';

export interface DashboardApp {
  app: VueApp;
  router: Router;
  pinia: Pinia;
}

/**
 * Builds the dashboard over a Platform (web or desktop) and a router history
 * (web: createWebHistory('/svc-monitoring/'); desktop: createWebHashHistory()).
 */
export function createDashboardApp(platform: Platform, history: RouterHistory, extensions: DashboardExtensions = {}): DashboardApp {
  const app = createApp(App);
  app.provide(PLATFORM_KEY, platform);
  app.provide(EXTENSIONS_KEY, extensions);
  const pinia = createPinia();
  app.use(pinia);
  const router = createAppRouter(history, pinia, extensions.routes ?? []);
  app.use(router);
  return { app, router, pinia };
}
