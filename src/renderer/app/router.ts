import { createRouter, type RouteRecordRaw, type Router, type RouterHistory } from 'vue-router';
import type { Pinia } from 'pinia';
import { useSessionStore } from '../stores/session.js';
import OverviewPage from '../pages/OverviewPage.vue';

export const routes: RouteRecordRaw[] = [
  { path: '/', name: 'overview', component: OverviewPage, meta: { title: 'Overview' } },
  { path: '/login', name: 'login', component: () => import('../pages/LoginPage.vue'), meta: { public: true, title: 'Sign in' } },
  { path: '/magic', name: 'magic', component: () => import('../pages/MagicPage.vue'), meta: { public: true, title: 'Signing in' } },
  { path: '/tasks', name: 'tasks', component: () => import('../pages/TasksPage.vue'), meta: { title: 'Tasks' } },
  { path: '/tasks/:id', name: 'task', component: () => import('../pages/TaskDetailPage.vue'), meta: { title: 'Task' } },
  { path: '/queues', name: 'queues', component: () => import('../pages/QueuesPage.vue'), meta: { title: 'Queues' } },
  { path: '/failures', name: 'failures', component: () => import('../pages/FailuresPage.vue'), meta: { title: 'What is failing' } },
  { path: '/statistics', name: 'statistics', component: () => import('../pages/StatisticsPage.vue'), meta: { title: 'Statistics' } },
  { path: '/audit', name: 'audit', component: () => import('../pages/AuditPage.vue'), meta: { title: 'Audit' } },
  { path: '/live', name: 'live', component: () => import('../pages/LivePage.vue'), meta: { title: 'Live feed' } },
  { path: '/:pathMatch(.*)*', name: 'not-found', component: () => import('../pages/NotFoundPage.vue'), meta: { title: 'Not found' } },
];

/**
 * The router with its guard: the runtime config is read once; without authentication
 * (`requireAuthentication=false`) there is no login page at all; otherwise every private
 * page needs a session and sends the user to login with a `redirect` back.
 */
export function createAppRouter(history: RouterHistory, pinia: Pinia, extraRoutes: RouteRecordRaw[] = []): Router {
  const all = [...routes.slice(0, -1), ...extraRoutes, ...routes.slice(-1)]; // the catch-all stays last
  const router = createRouter({ history, routes: all, scrollBehavior: () => ({ top: 0 }) });
  router.beforeEach(async (to) => {
    const session = useSessionStore(pinia);
    await session.init();
    if (session.initError) return true; // the shell shows the error with a retry
    const isPublic = to.meta.public === true;
    if (!session.requiresAuth) return to.name === 'login' || to.name === 'magic' ? { name: 'overview' } : true;
    if (isPublic) return to.name === 'login' && session.isAuthenticated ? { name: 'overview' } : true;
    if (!session.isAuthenticated) return { name: 'login', query: to.fullPath !== '/' ? { redirect: to.fullPath } : {} };
    return true;
  });
  router.afterEach((to) => {
    if (typeof document !== 'undefined') document.title = `${String(to.meta.title ?? 'Dashboard')} · Svc Monitor`;
  });
  return router;
}
