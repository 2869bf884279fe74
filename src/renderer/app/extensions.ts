import { inject, type Component, type InjectionKey } from 'vue';
import type { RouteRecordRaw } from 'vue-router';

/**
 * What a host build may add around the shared pages without touching them (the desktop
 * console: environments sidebar, production banner, failure inbox route, Ctrl/Cmd+K switcher).
 * The web build adds nothing.
 */
export interface DashboardExtensions {
  /** Rendered at the top of the sidebar, under the brand. */
  sidebarTop?: Component;
  /** Rendered above the top bar across the whole width (e.g. a production banner). */
  banner?: Component;
  /** Extra pages (each gets the same authentication guard unless `meta.public`). */
  routes?: RouteRecordRaw[];
  /** Extra navigation entries for those pages. */
  navItems?: { name: string; label: string; icon: string }[];
}

export const EXTENSIONS_KEY: InjectionKey<DashboardExtensions> = Symbol('dashboard-extensions');

export function useExtensions(): DashboardExtensions {
  return inject(EXTENSIONS_KEY, {});
}
