import { createWebHistory } from 'vue-router';
import { createDashboardApp } from './app/createDashboardApp.js';
import { createWebPlatform } from './platform/web/createWebPlatform.js';

const baseUrl = import.meta.env.BASE_URL; // '/svc-monitoring/'
const basePath = baseUrl.replace(/\/$/, '');
// `/svc-monitoring` (no slash) is the documented address: normalise it for the router.
if (window.location.pathname === basePath) {
  window.history.replaceState(window.history.state, '', `${baseUrl}${window.location.search}${window.location.hash}`);
}
const { app, router } = createDashboardApp(createWebPlatform({ basePath }), createWebHistory(baseUrl));
void router.isReady().then(() => app.mount('#app'));
