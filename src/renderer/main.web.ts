import { createWebHistory } from 'vue-router';
import { createDashboardApp } from './app/createDashboardApp.js';
import { createWebPlatform } from './platform/web/createWebPlatform.js';

const base = import.meta.env.BASE_URL.replace(/\/$/, '') || '/svc-monitoring';
const { app, router } = createDashboardApp(createWebPlatform({ basePath: base }), createWebHistory(import.meta.env.BASE_URL));
void router.isReady().then(() => app.mount('#app'));
