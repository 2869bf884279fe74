import type { RouteLocationRaw } from 'vue-router';

/** Only same-app paths are followed after sign-in (never another origin, never back to login). */
export function safeRedirect(value: unknown): RouteLocationRaw {
  const raw = Array.isArray(value) ? value[0] : value;
  if (typeof raw === 'string' && raw.startsWith('/') && !raw.startsWith('//') && !raw.startsWith('/login') && !raw.startsWith('/magic')) return raw;
  return { name: 'overview' };
}
