import { computed, ref } from 'vue';
import { mediaQueryMatches } from './mediaQuery.js';

export type ThemePreference = 'system' | 'light' | 'dark';
const KEY = 'svc-monitoring.theme';

/** The choices a theme selector offers, in order. */
export const THEME_CHOICES: ReadonlyArray<{ value: ThemePreference; label: string }> = [
  { value: 'system', label: 'System' },
  { value: 'light', label: 'Light' },
  { value: 'dark', label: 'Dark' },
];

function readPreference(): ThemePreference {
  try {
    const v = window.localStorage.getItem(KEY);
    return v === 'light' || v === 'dark' ? v : 'system';
  } catch {
    return 'system';
  }
}

/**
 * The page's colour theme, one per page: the dashboard's store and the desktop shell (which
 * has no store of its own) read and set this same state, so a choice made in either place
 * recolours both, charts included. Follows the system until the user picks one.
 */
export const themePreference = ref<ThemePreference>(typeof window !== 'undefined' ? readPreference() : 'system');
const systemDark = mediaQueryMatches('(prefers-color-scheme: dark)', () => applyTheme());

export const effectiveTheme = computed<'light' | 'dark'>(() => (themePreference.value === 'system' ? (systemDark.value ? 'dark' : 'light') : themePreference.value));

/** Puts the effective theme on `<html>` (data-theme and color-scheme). */
export function applyTheme(): void {
  if (typeof document !== 'undefined') {
    document.documentElement.dataset.theme = effectiveTheme.value;
    document.documentElement.style.colorScheme = effectiveTheme.value;
  }
}

/** Chooses a theme, remembers it (System forgets the choice) and applies it. */
export function setTheme(next: ThemePreference): void {
  themePreference.value = next;
  try {
    if (next === 'system') window.localStorage.removeItem(KEY);
    else window.localStorage.setItem(KEY, next);
  } catch {
    /* storage unavailable: keep it for this page only */
  }
  applyTheme();
}
