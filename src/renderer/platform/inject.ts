import { inject, type InjectionKey } from 'vue';
import type { Platform } from './Platform.js';

export const PLATFORM_KEY: InjectionKey<Platform> = Symbol('platform');

export function usePlatform(): Platform {
  const platform = inject(PLATFORM_KEY);
  if (!platform) throw new Error('No Platform provided: install the dashboard with createDashboardApp(platform, history).');
  return platform;
}
