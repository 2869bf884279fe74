import { defineStore } from 'pinia';
import { applyTheme, effectiveTheme, setTheme, themePreference, type ThemePreference } from '../theme/colourTheme.js';

export type { ThemePreference };

/** Light and dark themes for the dashboard: the page's one theme state (see colourTheme). */
export const useThemeStore = defineStore('theme', () => {
  function cycle(): void {
    setTheme(themePreference.value === 'system' ? (effectiveTheme.value === 'dark' ? 'light' : 'dark') : themePreference.value === 'dark' ? 'light' : 'system');
  }
  applyTheme();
  return { preference: themePreference, effective: effectiveTheme, set: setTheme, cycle, apply: applyTheme };
});
